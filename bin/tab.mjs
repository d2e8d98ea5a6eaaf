#!/usr/bin/env node
// `npx tab …`: runs the TypeScript CLI directly through tsx, so no build step is needed
// after `npm install`.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));

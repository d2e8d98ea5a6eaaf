#!/usr/bin/env node
// `npm run bench`: runs every benchmark in bench/ (or the ones named on the command line),
// one after another so they don't disturb each other, each printing its own table.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const wanted = process.argv.slice(2);
const benches = readdirSync("bench")
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.startsWith("_"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
let failed = 0;
for (const file of benches) {
  console.log(`\n=== bench/${file} ===`);
  const run = spawnSync("npx", ["tsx", `bench/${file}`], { stdio: "inherit" });
  if (run.status !== 0) {
    failed++;
    console.log(`bench/${file} failed with exit code ${run.status}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SNAPSHOT_DATABASE, SNAPSHOT_FLAG } from "./emulator/snapshot-names";

// index.html's first script is this file, transpiled alone and written into the page: it can
// import nothing at run time, so it spells the names it shares with the page's modules.
const source = readFileSync(new URL("./early-state-download.ts", import.meta.url), "utf8");

describe("index.html's first script", () => {
  it("names the snapshot database and the saved-state flag as the page's snapshot store does", () => {
    expect(source).toContain(`const SNAPSHOT_DATABASE = ${JSON.stringify(SNAPSHOT_DATABASE)};`);
    expect(source).toContain(`const SNAPSHOT_FLAG = ${JSON.stringify(SNAPSHOT_FLAG)};`);
  });

  it("imports only types, so that it can run without the page's bundle", () => {
    const imports = source.split("\n").filter((line) => /^import\b/.test(line));
    expect(imports.length).toBeGreaterThan(0);
    for (const line of imports) expect(line).toMatch(/^import type /);
  });
});

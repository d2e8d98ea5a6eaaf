import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KERNEL_RESULTS } from "./schema";

// tcpconnect in the guest names errno values from a table of its own (musl, the guest's C
// library, has no strerrorname_np): a name a lesson may expect must be one it can print.
const tcpconnect = readFileSync(new URL("../../guest/src/tcpconnect.c", import.meta.url), "utf8");

describe("the kernel results a lesson may name", () => {
  it("are each a name the guest's tcpconnect can print", () => {
    const names = new Set([...tcpconnect.matchAll(/NAME\((E[A-Z0-9]+)\)/g)].map((m) => m[1]));
    for (const result of KERNEL_RESULTS.filter((r) => r !== "ok")) expect(names, result).toContain(result);
  });
});

import { describe, expect, it } from "vitest";
import { expectItemName } from "./item-name";
import { ExpectItem } from "./schema";

describe("an unmet item is named in the author's words, never with what the reader saw", () => {
  it.each([
    [{ verdict: "served", by: "proxy", target: "api.github.com" }, "verdict served by proxy for api.github.com"],
    [{ exit: 0 }, "exit 0"],
    [{ exit: "nonzero" }, "exit nonzero"],
    [{ output: "token-[a-z]+" }, "output matching the step's pattern"],
    [{ kernel: "EACCES" }, "kernel EACCES"],
    [{ dns: "example.com" }, "dns example.com"],
  ])("%j is %s", (raw, name) => {
    expect(expectItemName(ExpectItem.parse(raw))).toBe(name);
  });
});

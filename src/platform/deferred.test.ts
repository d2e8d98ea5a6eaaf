import { describe, expect, it } from "vitest";
import { deferred } from "./deferred";

describe("a deferred promise", () => {
  it("settles with what its resolve or reject is given, once", async () => {
    const ok = deferred<number>();
    ok.resolve(42);
    ok.resolve(7);
    await expect(ok.promise).resolves.toBe(42);
    const failed = deferred();
    failed.reject(new Error("no"));
    await expect(failed.promise).rejects.toThrow("no");
  });
});

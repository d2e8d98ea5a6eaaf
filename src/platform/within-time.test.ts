import { afterEach, describe, expect, it, vi } from "vitest";
import { withinTime } from "./within-time";

describe("withinTime", () => {
  afterEach(() => vi.useRealTimers());

  it("gives the promise's value when it settles in time", async () => {
    vi.useFakeTimers();
    await expect(withinTime(Promise.resolve(7), 1_000, "the answer")).resolves.toBe(7);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with a sentence naming what did not happen, once the time has passed", async () => {
    vi.useFakeTimers();
    const waiting = withinTime(new Promise<never>(() => undefined), 120_000, "the restore");
    const outcome = expect(waiting).rejects.toThrow("the restore did not happen within 120 s");
    await vi.advanceTimersByTimeAsync(120_000);
    await outcome;
  });
});

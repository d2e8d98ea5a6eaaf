import { describe, expect, it } from "vitest";
import { fakeTimers } from "./testing/fake-timers";
import { withinTime } from "./within-time";

describe("withinTime", () => {
  it("gives the promise's value when it settles in time, and clears its timer", async () => {
    const timers = fakeTimers();
    await expect(withinTime(Promise.resolve(7), 1_000, "the answer", timers)).resolves.toBe(7);
    expect(timers.armed()).toEqual([]);
  });

  it("rejects with a sentence naming what did not happen, once the time has passed", async () => {
    const timers = fakeTimers();
    const waiting = withinTime(new Promise<never>(() => undefined), 120_000, "the restore", timers);
    const outcome = expect(waiting).rejects.toThrow("the restore did not happen within 120 s");
    await timers.advance(120_000);
    await outcome;
  });
});

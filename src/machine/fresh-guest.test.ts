import { describe, expect, it } from "vitest";
import { fakeTimers } from "../platform/testing/fake-timers";
import { freshen, freshRequest } from "./fresh-guest";
import { createGuestControl } from "./guest-control";

/** The line's time limit never fires here. */
const NO_TIME_LIMIT = { timers: fakeTimers(), answerWithinMs: 1 };

describe("the fresh-machine request a restored guest takes", () => {
  it("carries the host's clock as seconds and nanoseconds, then the seed in hex", () => {
    const text = freshRequest(1_764_633_600_123.5, Uint8Array.from([0x00, 0x0f, 0xa5, 0xff]));
    expect(text).toBe("fresh 1764633600 123500000 000fa5ff");
  });

  it("never writes a nanosecond count of a whole second or more", () => {
    const [, , nanos] = freshRequest(1_999.9999999, new Uint8Array(16)).split(" ");
    expect(Number(nanos)).toBeLessThan(1e9);
  });

  it("sends this host's clock and 64 new random bytes, a different seed every time", () => {
    const sent: string[] = [];
    const control = createGuestControl((bytes) => sent.push(new TextDecoder().decode(bytes)), NO_TIME_LIMIT);
    void freshen(control);
    void freshen(control);
    const parsed = sent.map((line) => /^\d+ fresh (\d+) (\d+) ([0-9a-f]+)\n$/.exec(line));
    expect(parsed.every((m) => m !== null)).toBe(true);
    expect(Math.abs(Number(parsed[0]![1]) - Date.now() / 1000)).toBeLessThan(5);
    expect(parsed[0]![3]).toHaveLength(128);
    expect(parsed[0]![3]).not.toBe(parsed[1]![3]);
  });

  it("fails with the guest's reason when the guest could not apply it", async () => {
    const control = createGuestControl(() => undefined, NO_TIME_LIMIT);
    const done = freshen(control);
    for (const byte of new TextEncoder().encode("1 error clock_settime failed\n")) control.receive(byte);
    await expect(done).rejects.toThrow("the guest refused fresh: clock_settime failed");
  });
});

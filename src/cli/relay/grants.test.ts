import { describe, expect, it } from "vitest";
import { GrantLedger, GrantSchedule } from "./grants";

const GRANT = 128;

describe("what a Wisp client may have sent, by the CONTINUE frames it was sent", () => {
  it("a client that ignores CONTINUE is past its grant at the first frame beyond it", () => {
    const ledger = new GrantLedger(GRANT);
    for (let i = 0; i < GRANT; i++) expect(ledger.receive()).toBe(true);
    expect(ledger.receive()).toBe(false);
  });

  it("a client that keeps to each CONTINUE it reads stays within, though frames sent under an older grant arrive after a newer one", () => {
    // A client with the absolute semantics: on reading CONTINUE(n) its allowance becomes n.
    // Everything it sends and every CONTINUE the relay sends spend `delay` steps on the way.
    let mostQueued = 0;
    for (const delay of [1, 7, 40, 200]) {
      const ledger = new GrantLedger(GRANT);
      let allowance = GRANT;
      let queued = 0;
      const toRelay: number[] = []; // arrival step of each DATA frame
      const toClient: Array<{ at: number; frames: number }> = [];
      let forwarded = 0;
      for (let step = 0; step < 5_000; step++) {
        while (toClient[0] && toClient[0].at <= step) allowance = toClient.shift()!.frames;
        if (allowance > 0) {
          allowance--;
          toRelay.push(step + delay);
        }
        while (toRelay[0] !== undefined && toRelay[0] <= step) {
          toRelay.shift();
          expect(ledger.receive()).toBe(true);
          queued++;
          mostQueued = Math.max(mostQueued, queued);
        }
        // The destination takes one frame every other step; a CONTINUE after each half grant
        // (the relay's schedule before GrantSchedule).
        if (step % 2 === 0 && queued > 0) {
          queued--;
          forwarded++;
          if (forwarded % (GRANT / 2) === 0) {
            const frames = GRANT - queued;
            ledger.grant(frames);
            toClient.push({ at: step + delay, frames });
          }
        }
      }
      expect(ledger.received).toBeGreaterThan(2_000);
    }
    // With the longest delay the queue passes two grants: a cap on queued frames would have
    // closed this client, which kept to every grant it read.
    expect(mostQueued).toBeGreaterThan(2 * GRANT);
  });

  it("with the relay's schedule a client keeping to each CONTINUE it reads queues at most one grant, and is always granted again", () => {
    // The same client and delays as above, against a destination that pauses now and then: the
    // relay grants only when GrantSchedule says so.
    for (const delay of [1, 7, 40, 200]) {
      const ledger = new GrantLedger(GRANT);
      const schedule = new GrantSchedule(GRANT);
      let allowance = GRANT;
      let queued = 0;
      let mostQueued = 0;
      const toRelay: number[] = [];
      const toClient: Array<{ at: number; frames: number }> = [];
      const grant = (step: number) => {
        const frames = schedule.due(queued);
        if (frames === null) return;
        ledger.grant(frames);
        toClient.push({ at: step + delay, frames });
      };
      for (let step = 0; step < 20_000; step++) {
        while (toClient[0] && toClient[0].at <= step) allowance = toClient.shift()!.frames;
        if (allowance > 0) {
          allowance--;
          toRelay.push(step + delay);
        }
        while (toRelay[0] !== undefined && toRelay[0] <= step) {
          toRelay.shift();
          expect(ledger.receive()).toBe(true);
          schedule.received();
          queued++;
          mostQueued = Math.max(mostQueued, queued);
          grant(step);
        }
        // The destination takes a frame a step, but stops for 300 steps out of every 1 000.
        if (step % 1_000 < 700 && queued > 0) {
          queued--;
          grant(step);
        }
      }
      expect(mostQueued).toBeLessThanOrEqual(GRANT);
      // It never stalls for want of a grant: at least half of what the destination takes (14 000
      // frames) or of a grant per round trip, whichever is less.
      const roundTrips = 20_000 / (2 * delay + GRANT);
      expect(ledger.received).toBeGreaterThanOrEqual(Math.min(14_000, GRANT * roundTrips) / 2);
    }
  });
});

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
    let mostQueued = 0;
    for (const delay of [1, 7, 40, 200]) {
      let forwarded = 0;
      // The destination takes one frame every other step; a CONTINUE after each half grant
      // (the relay's schedule before GrantSchedule).
      const run = simulate(delay, 5_000, {
        takes: (step) => step % 2 === 0,
        onReceived: () => null,
        onTaken: (queued) => (++forwarded % (GRANT / 2) === 0 ? GRANT - queued : null),
      });
      expect(run.received).toBeGreaterThan(2_000);
      mostQueued = Math.max(mostQueued, run.mostQueued);
    }
    // With the longest delay the queue passes two grants: a cap on queued frames would have
    // closed this client, which kept to every grant it read.
    expect(mostQueued).toBeGreaterThan(2 * GRANT);
  });

  it("with the relay's schedule a client keeping to each CONTINUE it reads queues at most one grant, and is always granted again", () => {
    for (const delay of [1, 7, 40, 200]) {
      const schedule = new GrantSchedule(GRANT);
      // The destination takes a frame a step, but stops for 300 steps out of every 1 000; the
      // relay grants when GrantSchedule says so.
      const run = simulate(delay, 20_000, {
        takes: (step) => step % 1_000 < 700,
        onReceived: (queued) => {
          schedule.received();
          return schedule.due(queued);
        },
        onTaken: (queued) => schedule.due(queued),
      });
      expect(run.mostQueued).toBeLessThanOrEqual(GRANT);
      // It never stalls for want of a grant: at least half of what the destination takes (14 000
      // frames) or of a grant per round trip, whichever is less.
      const roundTrips = 20_000 / (2 * delay + GRANT);
      expect(run.received).toBeGreaterThanOrEqual(Math.min(14_000, GRANT * roundTrips) / 2);
    }
  });
});

/** What the relay does in the simulation: whether its destination takes a frame this step, and the CONTINUE (frames, or null) it sends after a frame comes in or is taken. */
interface SimulatedRelay {
  takes(step: number): boolean;
  onReceived(queued: number): number | null;
  onTaken(queued: number): number | null;
}

/**
 * A client with the absolute semantics (on reading CONTINUE(n) its allowance becomes n) that
 * sends a frame a step while it may, against `relay`. Everything it sends and every CONTINUE
 * the relay sends spend `delay` steps on the way. Every frame must be within the ledger.
 */
function simulate(delay: number, steps: number, relay: SimulatedRelay): { received: number; mostQueued: number } {
  const ledger = new GrantLedger(GRANT);
  let allowance = GRANT;
  let queued = 0;
  let mostQueued = 0;
  const toRelay: number[] = []; // arrival step of each DATA frame
  const toClient: Array<{ at: number; frames: number }> = [];
  const send = (step: number, frames: number | null) => {
    if (frames === null) return;
    ledger.grant(frames);
    toClient.push({ at: step + delay, frames });
  };
  for (let step = 0; step < steps; step++) {
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
      send(step, relay.onReceived(queued));
    }
    if (relay.takes(step) && queued > 0) {
      queued--;
      send(step, relay.onTaken(queued));
    }
  }
  return { received: ledger.received, mostQueued };
}

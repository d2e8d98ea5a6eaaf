import { describe, expect, it } from "vitest";
import { GrantLedger } from "./grants";

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
        // The destination takes one frame every other step; a CONTINUE after each half grant.
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
});

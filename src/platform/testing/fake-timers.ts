import type { Timers } from "../time";

/**
 * Lets queued promise reactions and stream work (Web Streams, async consumers) run to
 * completion: a few turns of the host's own macrotask queue. Test support only, under Node.
 */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export interface FakeTimers extends Timers {
  /** The delays of the timers armed now, in ms from the current virtual time, soonest first. */
  armed(): number[];
  /** Moves virtual time on by `ms`: each timer that falls due fires, in order, and its effects settle. */
  advance(ms: number): Promise<void>;
  /** Fires every timer armed now, soonest first, as if its time had come (time moves to the last one's). */
  fireArmed(): void;
  /** Lets what is running finish, without moving time. */
  settle(): Promise<void>;
  /** Advances in steps of at least `stepMs` (to the next timer at once) until `done()` holds; fails after `limitMs` of virtual time. */
  runUntil(done: () => boolean, limitMs: number, stepMs?: number): Promise<void>;
}

/** Timers under the test's control: nothing fires until the test moves time, so no test waits for real. */
export function fakeTimers(): FakeTimers {
  let time = 0;
  let nextHandle = 1;
  const armed = new Map<number, { at: number; fire: () => void }>();
  // Soonest first; among timers due at the same time, the one armed first (Map order, a stable sort).
  const soonest = () => [...armed].sort(([, a], [, b]) => a.at - b.at)[0];
  const fireNext = (until: number): boolean => {
    const next = soonest();
    if (!next || next[1].at > until) return false;
    armed.delete(next[0]);
    time = Math.max(time, next[1].at);
    next[1].fire();
    return true;
  };
  const timers: FakeTimers = {
    now: () => time,
    setTimeout(fire, ms) {
      const handle = nextHandle++;
      armed.set(handle, { at: time + Math.max(0, ms), fire });
      return handle;
    },
    clearTimeout(handle) {
      armed.delete(handle as number);
    },
    armed: () => [...armed.values()].map((t) => t.at - time).sort((a, b) => a - b),
    async advance(ms) {
      const end = time + ms;
      await settle();
      while (fireNext(end)) await settle();
      time = end;
    },
    fireArmed() {
      for (const [handle, timer] of [...armed].sort(([, a], [, b]) => a.at - b.at)) {
        if (!armed.delete(handle)) continue; // cleared by one fired before it
        time = Math.max(time, timer.at);
        timer.fire();
      }
    },
    settle,
    async runUntil(done, limitMs, stepMs = 1) {
      const start = time;
      while (!done()) {
        if (time - start > limitMs) throw new Error(`not done after ${limitMs} ms of virtual time`);
        // Straight to the next timer when it is further than a step: nothing fires in between.
        const next = soonest();
        await timers.advance(Math.max(stepMs, next ? next[1].at - time : stepMs));
      }
    },
  };
  return timers;
}

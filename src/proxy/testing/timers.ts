import type { Timers } from "../../platform";

/** Lets queued stream and promise work run to completion (one macrotask turn, a few times over). */
async function drain(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export interface FakeTimers extends Timers {
  /** The delays of the timers armed now, in ms from the current virtual time, soonest first. */
  armed(): number[];
  /** Moves virtual time on by `ms`: each timer that falls due fires, in order, and its effects settle. */
  advance(ms: number): Promise<void>;
  /** Lets the proxy finish what it is doing, without moving time. */
  settle(): Promise<void>;
}

/** Timers under the test's control: nothing fires until `advance`, so no test waits for real. */
export function fakeTimers(): FakeTimers {
  let time = 0;
  let nextHandle = 1;
  const armed = new Map<number, { at: number; fire: () => void }>();
  const soonest = () => [...armed].sort(([, a], [, b]) => a.at - b.at)[0];
  return {
    now: () => time,
    setTimeout(fire, ms) {
      const handle = nextHandle++;
      armed.set(handle, { at: time + ms, fire });
      return handle;
    },
    clearTimeout(handle) {
      armed.delete(handle as number);
    },
    armed: () => [...armed.values()].map((t) => t.at - time).sort((a, b) => a - b),
    async advance(ms) {
      const end = time + ms;
      await drain();
      for (let next = soonest(); next && next[1].at <= end; next = soonest()) {
        armed.delete(next[0]);
        time = next[1].at;
        next[1].fire();
        await drain();
      }
      time = end;
    },
    settle: drain,
  };
}

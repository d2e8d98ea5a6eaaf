import { systemTimers, type Timers } from "./time";

/**
 * `promise`, or a rejection saying "`what` did not happen within N s" once `ms` have passed.
 * The promise is left to settle on its own; the timer is cleared either way.
 */
export function withinTime<T>(promise: Promise<T>, ms: number, what: string, timers: Timers = systemTimers): Promise<T> {
  let timer: unknown;
  const limit = new Promise<never>((_, reject) => {
    timer = timers.setTimeout(() => reject(new Error(`${what} did not happen within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => timers.clearTimeout(timer));
}

import { systemTimers, type Timers } from "../platform";

/** Node's timers, unref'd: a pending timeout alone never keeps the process alive. */
export const nodeTimers: Timers = {
  now: systemTimers.now,
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

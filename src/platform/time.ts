/**
 * Time, injected: every core component that waits or stamps takes these from its host, so a
 * test moves time by hand and nothing in the core reaches for the global timers itself.
 */

/** Milliseconds: since the Unix epoch for event times, or monotonic where a component says so. */
export type Clock = () => number;

/** Timers (the page's, Node's, or a test's fake) and the monotonic clock they count in. */
export interface Timers {
  /** Milliseconds on a monotonic clock (TCP's retransmission and delayed ACKs measure with it). */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The host's own timers: the same in the page and in Node. */
export const systemTimers: Timers = {
  now: () => (typeof performance !== "undefined" ? performance.now() : Date.now()),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** The host's wall clock: what stamps events. */
export const systemClock: Clock = () => Date.now();

import { type NewEvent, refuse, type Verdict } from "../log";
import type { Timers } from "../platform";
import type { HeadRead } from "./source";
import type { ProxyOptions } from "./types";

/** A guest that has not finished its request head by then is answered 408 (a slow client cannot hold a connection open). */
export const DEFAULT_HEAD_TIMEOUT_MS = 30_000;
/** A connection or tunnel with no traffic either way for this long is closed. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;
/**
 * A request body must be complete this long after its head: the idle clock alone
 * let a body trickle in a byte at a time for ever.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;
/** The upstream must answer, and each piece of its body arrive, within this; then 504 or a cut. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 120_000;

export interface TimeoutSettings {
  timers: Timers;
  headMs: number;
  idleMs: number;
  bodyMs: number;
  upstreamMs: number;
}

type TimeoutOptions = Pick<ProxyOptions, "timers" | "headTimeoutMs" | "idleTimeoutMs" | "bodyTimeoutMs" | "upstreamTimeoutMs">;

/** The proxy's timeouts from its options; null (nothing times out) when no timers were given. */
export function timeoutSettings(options: TimeoutOptions): TimeoutSettings | null {
  const headMs = options.headTimeoutMs ?? DEFAULT_HEAD_TIMEOUT_MS;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const bodyMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const upstreamMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  for (const [name, ms] of [
    ["headTimeoutMs", headMs],
    ["idleTimeoutMs", idleMs],
    ["bodyTimeoutMs", bodyMs],
    ["upstreamTimeoutMs", upstreamMs],
  ] as const) {
    if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, not ${ms}`);
  }
  return options.timers ? { timers: options.timers, headMs, idleMs, bodyMs, upstreamMs } : null;
}

/** The upstream clock alone (the by-value path has no connection): null when nothing times out. */
export function upstreamClock(options: Pick<ProxyOptions, "timers" | "upstreamTimeoutMs">): UpstreamClock | null {
  const ms = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  return options.timers ? { timers: options.timers, ms } : null;
}

export interface UpstreamClock {
  timers: Timers;
  ms: number;
}

/** `promise`, or "timeout" if it has not settled within the clock's time (the promise is left to settle on its own). */
export async function within<T>(
  clock: UpstreamClock | null,
  promise: Promise<T>,
): Promise<{ kind: "value"; value: T } | { kind: "timeout" }> {
  if (!clock) return { kind: "value", value: await promise };
  let handle: unknown = null;
  const expired = new Promise<{ kind: "timeout" }>((resolve) => {
    handle = clock.timers.setTimeout(() => resolve({ kind: "timeout" }), clock.ms);
  });
  const settled = promise.then((value) => ({ kind: "value" as const, value }));
  // A rejection after the timeout has no one waiting for it; it must not become an unhandled one.
  settled.catch(() => undefined);
  try {
    return await Promise.race([settled, expired]);
  } finally {
    clock.timers.clearTimeout(handle);
  }
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/** The refusal for a head not complete in time: answered 408. */
export function headTimeoutVerdict(headMs: number): Verdict {
  return refuse("request-timeout", `request timeout: no complete request head within ${seconds(headMs)}`, "proxy");
}

/** The refusal for a body not complete in time: answered 408. */
export function bodyTimeoutVerdict(bodyMs: number): Verdict {
  return refuse("request-timeout", `request timeout: the request body was not complete within ${seconds(bodyMs)} of its head`, "proxy");
}

/** What an upstream that stopped answering is told as. */
export function upstreamTimeoutReason(ms: number, what: string): string {
  return `${what} within ${seconds(ms)}`;
}

/** What the log says when an idle connection is closed: there is no request to decide on, so a note. */
export function idleNote(idleMs: number, tunnelTarget: string | null, lastRequest: string | null): NewEvent {
  const what = tunnelTarget
    ? `the CONNECT tunnel to ${tunnelTarget}${lastRequest ? ` (${lastRequest})` : ""}`
    : `a connection${lastRequest ? ` (last request ${lastRequest})` : " before its first request"}`;
  return { kind: "note", level: "info", source: "proxy", message: `idle timeout: closed ${what} after ${seconds(idleMs)} without traffic` };
}

/** One timer over the injected timers; starting it again replaces the pending one. */
class Countdown {
  private handle: unknown = null;

  constructor(
    private readonly timers: Timers,
    private readonly ms: number,
    private readonly fire: () => void,
  ) {}

  get running(): boolean {
    return this.handle !== null;
  }

  start(): void {
    this.stop();
    this.handle = this.timers.setTimeout(this.expired, this.ms);
  }

  stop(): void {
    if (this.handle === null) return;
    this.timers.clearTimeout(this.handle);
    this.handle = null;
  }

  private readonly expired = (): void => {
    this.handle = null;
    this.fire();
  };
}

export type TimedHeadRead = HeadRead | { kind: "timeout"; afterMs: number };
export type Timed<T> = { kind: "done"; value: T } | { kind: "timeout"; afterMs: number };

/**
 * The two clocks on one guest connection. A request head must be complete within `headMs`
 * of its first byte (of the connection's opening, for the first request), or the guest is
 * answered 408. With `onIdle`, a connection that passes no traffic either way for `idleMs`
 * (between keep-alive requests, inside an open CONNECT tunnel, or stalled mid-request) is
 * handed to `onIdle` to be closed. Traffic is reported through `traffic`.
 */
export class ConnectionTimeouts {
  private readonly head: Countdown | null;
  private readonly headMs: number;
  private readonly idle: Countdown | null;
  private waitingForHead = false;
  private disposed = false;
  private headExpired: (() => void) | null = null;

  constructor(
    private readonly settings: TimeoutSettings | null,
    onIdle: (() => void) | null,
  ) {
    this.head = settings && new Countdown(settings.timers, settings.headMs, () => this.headExpired?.());
    this.headMs = settings?.headMs ?? 0;
    this.idle = settings && onIdle && new Countdown(settings.timers, settings.idleMs, onIdle);
    this.idle?.start();
  }

  /** Bytes moved: "in" from the guest, "out" to it. The first byte of a head starts its clock. */
  traffic(direction: "in" | "out"): void {
    if (this.disposed) return;
    this.idle?.start();
    if (direction === "in" && this.waitingForHead && this.head && !this.head.running) this.head.start();
  }

  /** Reads a head against the head clock; `started` when its first byte is already here (or it is the first request). */
  async readHead(read: () => Promise<HeadRead>, started: boolean): Promise<TimedHeadRead> {
    const head = this.head;
    if (!head) return read();
    this.waitingForHead = true;
    const expired = new Promise<TimedHeadRead>((resolve) => {
      this.headExpired = () => resolve({ kind: "timeout", afterMs: this.headMs });
    });
    if (started) head.start();
    try {
      return await Promise.race([read(), expired]);
    } finally {
      this.waitingForHead = false;
      this.headExpired = null;
      head.stop();
    }
  }

  /**
   * Reads a body against the body clock, which starts now (after the head, and after any
   * 100 Continue). On timeout the read is left pending: the caller answers 408 and closes the
   * connection, which ends it.
   */
  async readBody<T>(read: () => Promise<T>): Promise<Timed<T>> {
    if (!this.settings || this.disposed) return { kind: "done", value: await read() };
    const settings = this.settings;
    let handle: unknown = null;
    const expired = new Promise<Timed<T>>((resolve) => {
      handle = settings.timers.setTimeout(() => resolve({ kind: "timeout", afterMs: settings.bodyMs }), settings.bodyMs);
    });
    const settled = read().then((value) => ({ kind: "done" as const, value }));
    settled.catch(() => undefined); // as in `within`: a late rejection is nobody's
    try {
      return await Promise.race([settled, expired]);
    } finally {
      settings.timers.clearTimeout(handle);
    }
  }

  /** The connection is over: no timer of it may fire any more. */
  dispose(): void {
    this.disposed = true;
    this.head?.stop();
    this.idle?.stop();
  }
}

import { type NewEvent, refuse, type Verdict } from "../log";
import type { HeadRead } from "./source";
import type { ProxyOptions, ProxyTimers } from "./types";

/** A guest that has not finished its request head by then is answered 408 (issue 5 debt). */
export const DEFAULT_HEAD_TIMEOUT_MS = 30_000;
/** A connection or tunnel with no traffic either way for this long is closed. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;

export interface TimeoutSettings {
  timers: ProxyTimers;
  headMs: number;
  idleMs: number;
}

/** The proxy's timeouts from its options; null (nothing times out) when no timers were given. */
export function timeoutSettings(options: Pick<ProxyOptions, "timers" | "headTimeoutMs" | "idleTimeoutMs">): TimeoutSettings | null {
  const headMs = options.headTimeoutMs ?? DEFAULT_HEAD_TIMEOUT_MS;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  for (const [name, ms] of [
    ["headTimeoutMs", headMs],
    ["idleTimeoutMs", idleMs],
  ] as const) {
    if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, not ${ms}`);
  }
  return options.timers ? { timers: options.timers, headMs, idleMs } : null;
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/** The refusal for a head not complete in time: answered 408, logged as `bad-request` (no closer code yet). */
export function headTimeoutVerdict(headMs: number): Verdict {
  return refuse("request-timeout", `request timeout: no complete request head within ${seconds(headMs)}`, "net");
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
    private readonly timers: ProxyTimers,
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

  constructor(settings: TimeoutSettings | null, onIdle: (() => void) | null) {
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

  /** The connection is over: no timer of it may fire any more. */
  dispose(): void {
    this.disposed = true;
    this.head?.stop();
    this.idle?.stop();
  }
}

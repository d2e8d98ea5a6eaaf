import type { EventLog, LogEvent } from "../log";
import { systemTimers, type Timers } from "../platform";

/**
 * TCP connections to the page that opened at or after `fromSeq` and are not closed yet. A
 * command's requests are decided, and their decisions logged, before the page closes their
 * connection, so "none left open" means the command's decisions are all on the log.
 */
export function connectionsOpenSince(events: readonly LogEvent[], fromSeq: number): Set<string> {
  const open = new Set<string>();
  for (const e of events) {
    if (e.seq < fromSeq || e.kind !== "wire.connection") continue;
    if (e.phase === "open") open.add(e.id);
    else open.delete(e.id);
  }
  return open;
}

/**
 * Resolves once every connection opened since `fromSeq` has closed: true, or false when
 * `limitMs` passed first (a connection a background program keeps open must not hold a
 * scenario forever).
 */
export function connectionsClosed(log: EventLog, fromSeq: number, limitMs: number, timers: Timers = systemTimers): Promise<boolean> {
  const open = connectionsOpenSince(log.events(), fromSeq);
  if (open.size === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (closed: boolean) => {
      timers.clearTimeout(timer);
      stop();
      resolve(closed);
    };
    const timer = timers.setTimeout(() => done(false), limitMs);
    const stop = log.subscribe((e) => {
      if (e.kind !== "wire.connection" || e.phase === "open") return;
      open.delete(e.id);
      if (open.size === 0) done(true);
    });
  });
}

/**
 * What a command's window also waits for after its end mark: the kernel's Landlock audit
 * records travel on the guest's control line, beside the console, so the prompt that ends a
 * refused command can reach the host before the kernel's decision does. A host that expects
 * one (a lesson step judged on the kernel's word, verdict-table row 6) waits for an event of
 * these kinds, up to `limitMs`, when the command did not exit 0.
 */
export interface LateReports {
  kinds: readonly string[];
  limitMs: number;
}

/** How long a window waits for a late kernel decision before it is judged without one. */
export const KERNEL_REPORT_LIMIT_MS = 5_000;

/** The kernel's decisions, which come on the control line (see `LateReports`). */
export const KERNEL_REPORTS: LateReports = { kinds: ["kernel.decision"], limitMs: KERNEL_REPORT_LIMIT_MS };

/** Resolves true once an event of one of `late.kinds` is on the log at or after `fromSeq`, false after `late.limitMs`. */
export function lateReportArrived(log: EventLog, fromSeq: number, late: LateReports, timers: Timers = systemTimers): Promise<boolean> {
  const wanted = (e: LogEvent) => e.seq >= fromSeq && late.kinds.includes(e.kind);
  if (log.events().some(wanted)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (arrived: boolean) => {
      timers.clearTimeout(timer);
      stop();
      resolve(arrived);
    };
    const timer = timers.setTimeout(() => done(false), late.limitMs);
    const stop = log.subscribe((e) => {
      if (wanted(e)) done(true);
    });
  });
}

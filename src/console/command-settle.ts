import type { EventLog, LogEvent } from "../log";

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
export function connectionsClosed(log: EventLog, fromSeq: number, limitMs: number): Promise<boolean> {
  const open = connectionsOpenSince(log.events(), fromSeq);
  if (open.size === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (closed: boolean) => {
      clearTimeout(timer);
      stop();
      resolve(closed);
    };
    const timer = setTimeout(() => done(false), limitMs);
    const stop = log.subscribe((e) => {
      if (e.kind !== "wire.connection" || e.phase === "open") return;
      open.delete(e.id);
      if (open.size === 0) done(true);
    });
  });
}

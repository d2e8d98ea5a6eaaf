import { type LogEvent, toJsonLines } from "../../log";
import type { ProxyDecisionEvent } from "../log-lines";

/** A proxy decision as the log holds it, with only the fields a test cares about given. */
export function decisionLine(seq: number, fields: Partial<ProxyDecisionEvent> & Pick<ProxyDecisionEvent, "target">): ProxyDecisionEvent {
  return {
    kind: "proxy.decision",
    seq,
    time: 1000 + seq,
    id: `r${seq}`,
    mode: "absolute",
    method: "GET",
    status: fields.allowed === false ? 403 : 200,
    bytes: 0,
    durationMs: 1,
    allowed: true,
    code: "served",
    reason: "served",
    by: "proxy",
    ...fields,
  };
}

export function jsonLines(events: readonly LogEvent[]): string {
  return toJsonLines(events);
}

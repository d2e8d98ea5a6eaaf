import type { NewEvent } from "./event";
import type { Decider, VerdictCode } from "./verdict";

/**
 * What a decision was about. One HTTPS request makes two decisions: the CONNECT that opens the
 * tunnel (`tunnel`: its `served` means only "the tunnel opened"), then the request inside it
 * (`request`, with `tunnel` naming the CONNECT it travelled in). `own` is the page's own
 * endpoints (`/v0/log`, `/v0/policy`): the guest looking, not trying. `other` is everything
 * that is not a proxied request (the wire, the kernel, the vault, the resolver, skills, the cache).
 */
export type DecisionAbout = "tunnel" | "request" | "own" | "other";

/** The decision one log event carries: the only reading of "which events decide, with what". */
export interface Decision {
  /** The event's kind (`proxy.decision`, `kernel.result`, …). */
  kind: NewEvent["kind"];
  code: VerdictCode;
  by: Decider;
  allowed: boolean;
  /** What was decided about (a host:port, a URL, a vault id, a ref), when the event names one. */
  target: string | null;
  /** The component's own reason, as the event carries it. */
  reason: string;
  about: DecisionAbout;
  /** A short phrase naming what was decided, e.g. `GET https://h/p`, `TLS for h`, `vault pull of v`. Hostile text: render as text only. */
  subject: string;
  /** The proxy's request id (a CONNECT's id is its tunnel's id). */
  request?: string;
  /** For a request or a TLS verdict inside a CONNECT tunnel: the tunnel's id (the CONNECT's `request`). */
  tunnel?: string;
  /** Served, but the upstream's body ended early: the guest got a success status and a body cut short. */
  bodyCut?: true;
  /** Served under report mode: the code the allowlist would have refused with, and why. */
  wouldRefuse?: VerdictCode;
  wouldRefuseReason?: string;
}

/**
 * The kinds `decisionOf` reads: an event of any other kind carries no decision. Written beside
 * its switch; decision.test.ts holds the two together over a sample of every kind.
 */
export const DECISION_KINDS = [
  "proxy.decision",
  "tls.verdict",
  "wire.verdict",
  "wire.malformed",
  "kms.event",
  "resolver.step",
  "skills.step",
  "cache.event",
  "kernel.decision",
] as const satisfies readonly NewEvent["kind"][];

/**
 * The decision an event carries, or null for an event that decides nothing (frames, sessions,
 * boot, rulesets, DNS answers). The kernel decides through its own Landlock audit record
 * (`kernel.decision`, `landlock-denied` by the kernel); a demo's `kernel.result` (the errno
 * `tcpconnect` printed) is the guest's view of that refusal, not a second decision.
 */
export function decisionOf(event: NewEvent): Decision | null {
  switch (event.kind) {
    case "proxy.decision": {
      const about: DecisionAbout = event.mode === "connect" ? "tunnel" : event.mode === "own" ? "own" : "request";
      const tunnel = event.mode === "tunnel" ? event.tlsSession : undefined;
      return {
        ...verdictFields(event),
        target: event.target,
        about,
        subject: `${event.method} ${event.target}`,
        request: event.id,
        ...(tunnel === undefined ? {} : { tunnel }),
        ...(event.bodyCut ? { bodyCut: true as const } : {}),
        ...(event.wouldRefuse === undefined ? {} : { wouldRefuse: event.wouldRefuse }),
        ...(event.wouldRefuseReason === undefined ? {} : { wouldRefuseReason: event.wouldRefuseReason }),
      };
    }
    case "tls.verdict":
      return { ...verdictFields(event), target: event.target, about: "request", subject: `TLS for ${event.target}`, tunnel: event.session };
    case "wire.verdict":
      return { ...verdictFields(event), target: event.target, about: "other", subject: `a packet to ${event.target}` };
    case "wire.malformed":
      return event.code === undefined
        ? null
        : {
            kind: event.kind,
            code: event.code,
            by: "wire",
            allowed: false,
            target: null,
            reason: event.reason,
            about: "other",
            subject: `a frame of ${event.bytes} bytes`,
          };
    case "kms.event":
      return {
        ...verdictFields(event),
        target: event.vaultId,
        about: "other",
        subject: `vault ${event.op}${event.access ? ` (${event.access} grant)` : ""} of ${event.vaultId}`,
      };
    case "resolver.step":
      return { ...verdictFields(event), target: event.url ?? event.ref, about: "other", subject: `${event.field} ${event.ref}` };
    case "skills.step":
      return { ...verdictFields(event), target: event.url ?? event.id, about: "other", subject: `skills ${event.step} of ${event.id}` };
    case "cache.event":
      return event.op === "corrupt"
        ? {
            kind: event.kind,
            code: "cache-corrupt",
            by: "cas",
            allowed: false,
            target: event.url ?? event.sha256 ?? null,
            reason: event.message ?? "the cached bytes do not hash to their address",
            about: "other",
            subject: `the cached entry ${event.sha256 ?? ""}`.trim(),
          }
        : null;
    case "kernel.decision":
      return {
        ...verdictFields(event),
        target: event.target,
        about: "other",
        subject: `${event.access.join(", ")} on ${event.target}`,
      };
    default:
      return null;
  }
}

function verdictFields(event: {
  kind: NewEvent["kind"];
  code: VerdictCode;
  by: Decider;
  allowed: boolean;
  reason: string;
}): Pick<Decision, "kind" | "code" | "by" | "allowed" | "reason"> {
  return { kind: event.kind, code: event.code, by: event.by, allowed: event.allowed, reason: event.reason };
}

/** The decisions of a run of events, in order (events that decide nothing are left out). */
export function decisionsOf(events: readonly NewEvent[]): Decision[] {
  const out: Decision[] = [];
  for (const e of events) {
    const d = decisionOf(e);
    if (d) out.push(d);
  }
  return out;
}

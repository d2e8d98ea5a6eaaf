import { type Decider, type DecisionAbout, decisionOf, type LogEvent } from "../log";

/**
 * One outcome of something a command did: a decision (read by `decisionOf`, the log's one
 * reading of which events decide), a kernel result a demo reported, or a DNS query seen on
 * the wire. This adds only what a learner reads (the sentence) and the kernel's errno name.
 */
export interface Outcome {
  kind: string;
  /** The verdict code, or the DNS answer. */
  code?: string;
  by?: Decider;
  target?: string;
  /** Absent for outcomes that are not a decision (a DNS answer, a kernel result other than EACCES). */
  allowed?: boolean;
  /** The component's own reason, as the event carries it. */
  reason: string;
  /** One sentence fragment a learner reads: what happened, which component decided. */
  sentence: string;
  /** What the decision was about: a CONNECT opening a tunnel, a request, the page's own endpoints, something else. */
  about?: DecisionAbout;
  /** The proxy's request id; a CONNECT's id is its tunnel's. */
  request?: string;
  /** For a request inside a tunnel: the CONNECT's id. */
  tunnel?: string;
  /** Served, but the upstream cut its body short. */
  bodyCut?: boolean;
  /** For a kernel result: the errno name the guest printed (`EACCES`, `ok`, `ECONNREFUSED`). */
  result?: string;
  /** The page looking at itself (`/v0/log`, `/v0/policy`): never the step's outcome unless it asks for it. */
  own?: boolean;
}

const seen = (allowed: boolean, yes: string, no: string) => (allowed ? yes : no);

/** The sentence a learner reads for an event that decided, from its own fields. */
function sentenceOf(event: LogEvent, allowed: boolean, code: string, by: string): string {
  const tail = `: ${code} (by ${by})`;
  switch (event.kind) {
    case "proxy.decision":
      return event.mode === "connect" && allowed
        ? `the proxy opened the tunnel to ${event.target} (CONNECT ${code}, by ${by}, HTTP ${event.status}), ${event.reason}`
        : `the proxy ${seen(allowed, "allowed", "refused")} ${event.method} ${event.target}: ${code} (by ${by}, HTTP ${event.status}), ${event.reason}${event.bodyCut ? ", but the upstream cut its body short" : ""}`;
    case "tls.verdict":
      return `TLS inside the tunnel to ${event.target} was ${seen(allowed, "accepted", "refused")}${tail}, ${event.reason}`;
    case "wire.verdict":
      return `a packet to ${event.target} was ${seen(allowed, "let through", "refused")} on the wire${tail}, ${event.reason}`;
    case "wire.malformed":
      return `a frame of ${event.bytes} bytes was dropped on the wire${tail}, ${event.reason}`;
    case "kms.event":
      return `the vault's ${event.op}${event.access ? ` (${event.access} grant)` : ""} of ${event.vaultId} was ${seen(allowed, "served", "refused")}${tail}, ${event.reason}`;
    case "resolver.step":
      return `the resolver ${seen(allowed, "accepted", "refused")} ${event.field} ${event.ref}${tail}, ${event.reason}`;
    case "skills.step":
      return `the skills ${event.step} of ${event.id} was ${seen(allowed, "accepted", "refused")}${tail}, ${event.reason}`;
    case "cache.event":
      return `the cache refused an entry whose bytes do not hash to ${event.sha256 ?? "its address"}${tail}`;
    case "kernel.decision":
      return `the kernel refused ${event.access.join(", ")} on ${event.target} to ${event.program || "a process"}${event.pid === null ? "" : ` (pid ${event.pid})`}${tail}, Landlock domain ${event.domain}`;
    default:
      return `${event.kind}${tail}`;
  }
}

/** The outcome an event records, or null for events that are not one (frames, sessions, boot, rulesets). */
export function outcomeOf(event: LogEvent): Outcome | null {
  const d = decisionOf(event);
  const result = event.kind === "kernel.result" ? { result: event.result } : {};
  if (d)
    return {
      kind: d.kind,
      code: d.code,
      by: d.by,
      ...(d.target === null ? {} : { target: d.target }),
      allowed: d.allowed,
      reason: event.kind === "kernel.result" ? event.line || d.reason : d.reason,
      sentence: sentenceOf(event, d.allowed, d.code, d.by),
      about: d.about,
      ...(d.request === undefined ? {} : { request: d.request }),
      ...(d.tunnel === undefined ? {} : { tunnel: d.tunnel }),
      ...(d.bodyCut ? { bodyCut: true } : {}),
      ...(d.about === "own" ? { own: true } : {}),
      ...result,
    };
  if (event.kind === "kernel.result")
    return {
      kind: event.kind,
      by: "kernel",
      target: event.target,
      reason: event.line,
      sentence: `${event.program} to ${event.target} got ${event.result}${event.errno === null ? "" : ` (errno ${event.errno})`} from the kernel`,
      result: event.result,
    };
  if (event.kind === "wire.dns")
    return {
      kind: event.kind,
      code: event.answer,
      target: event.name,
      reason: `answered ${event.answer}`,
      sentence: `a DNS query for ${event.name} (${event.type}) crossed the wire and was answered ${event.answer}`,
    };
  return null;
}

/**
 * The outcome a window is best summed up by when nothing specific was asked for: the first
 * refusal (the thing that stopped the command), else the first decision about a request
 * (the one inside a tunnel, not the CONNECT that opened it) that is not the page looking at
 * itself, else the first decision, else the first outcome, else null. A refusal of the page's
 * own endpoints (such as `tab-fetch` outside a run) counts.
 */
export function mainOutcome(outcomes: readonly Outcome[]): Outcome | null {
  const tried = outcomes.filter((o) => !(o.own && o.allowed));
  return (
    tried.find((o) => o.allowed === false) ??
    tried.find((o) => o.allowed !== undefined && o.about !== "tunnel") ??
    tried.find((o) => o.allowed !== undefined) ??
    tried[0] ??
    null
  );
}

import type { Decider, LogEvent } from "../log";

/**
 * One outcome of something a command did, from whichever event kind carries it: a decision
 * with a verdict (proxy, TLS, wire, vault/KMS, resolver, skills, the cache), a kernel result a
 * demo reported, or a DNS query seen on the wire.
 */
export interface Outcome {
  kind: string;
  /** The verdict code, or the kernel's errno name (`EACCES`, `ok`), or the DNS answer. */
  code?: string;
  by?: Decider;
  target?: string;
  /** Absent for outcomes that are not a decision (a DNS answer). */
  allowed?: boolean;
  /** The component's own reason, as the event carries it. */
  reason: string;
  /** One sentence fragment a learner reads: what happened, which component decided. */
  sentence: string;
  /** The page looking at itself (`/v0/log`, `/v0/policy`): never the step's outcome unless it asks for it. */
  own?: boolean;
}

const seen = (allowed: boolean, yes: string, no: string) => (allowed ? yes : no);

/** The fields every event that carries a verdict shares, with its target and the sentence a learner reads. */
function decided(
  event: { kind: string; code: string; by: Decider; allowed: boolean; reason: string },
  target: string | undefined,
  sentence: string,
): Outcome {
  return { kind: event.kind, code: event.code, by: event.by, target, allowed: event.allowed, reason: event.reason, sentence };
}

/** The outcome an event records, or null for events that are not one (frames, sessions, boot, rulesets). */
export function outcomeOf(event: LogEvent): Outcome | null {
  switch (event.kind) {
    case "proxy.decision":
      return {
        ...decided(
          event,
          event.target,
          `the proxy ${seen(event.allowed, "allowed", "refused")} ${event.method} ${event.target}: ${event.code} (by ${event.by}, HTTP ${event.status}), ${event.reason}`,
        ),
        own: event.mode === "own",
      };
    case "tls.verdict":
      return decided(
        event,
        event.target,
        `TLS inside the tunnel to ${event.target} was ${seen(event.allowed, "accepted", "refused")}: ${event.code} (by ${event.by}), ${event.reason}`,
      );
    case "wire.verdict":
      return decided(
        event,
        event.target,
        `a packet to ${event.target} was ${seen(event.allowed, "let through", "refused")} on the wire: ${event.code} (by ${event.by}), ${event.reason}`,
      );
    case "wire.malformed":
      return event.code === undefined
        ? null
        : {
            kind: event.kind,
            code: event.code,
            by: "wire",
            allowed: false,
            reason: event.reason,
            sentence: `a frame of ${event.bytes} bytes was dropped on the wire: ${event.code} (by wire), ${event.reason}`,
          };
    case "kms.event":
      return decided(
        event,
        event.vaultId,
        `the vault's ${event.op}${event.access ? ` (${event.access} grant)` : ""} of ${event.vaultId} was ${seen(event.allowed, "served", "refused")}: ${event.code} (by ${event.by}), ${event.reason}`,
      );
    case "resolver.step":
      return decided(
        event,
        event.url ?? event.ref,
        `the resolver ${seen(event.allowed, "accepted", "refused")} ${event.field} ${event.ref}: ${event.code} (by ${event.by}), ${event.reason}`,
      );
    case "skills.step":
      return decided(
        event,
        event.url ?? event.id,
        `the skills ${event.step} of ${event.id} was ${seen(event.allowed, "accepted", "refused")}: ${event.code} (by ${event.by}), ${event.reason}`,
      );
    case "cache.event":
      return event.op === "corrupt"
        ? {
            kind: event.kind,
            code: "cache-corrupt",
            by: "cas",
            target: event.url ?? event.sha256 ?? undefined,
            allowed: false,
            reason: event.message ?? "the cached bytes do not hash to their address",
            sentence: `the cache refused an entry whose bytes do not hash to ${event.sha256 ?? "its address"}: cache-corrupt (by cas)`,
          }
        : null;
    case "kernel.decision":
      return decided(
        event,
        event.target,
        `the kernel refused ${event.access.join(", ")} on ${event.target} to ${event.program || "a process"}${event.pid === null ? "" : ` (pid ${event.pid})`}: ${event.code} (by ${event.by}, Landlock domain ${event.domain})`,
      );
    case "kernel.result":
      return {
        kind: event.kind,
        code: event.result,
        by: "kernel",
        target: event.target,
        allowed: event.result === "ok",
        reason: event.line,
        sentence: `${event.program} to ${event.target} got ${event.result}${event.errno === null ? "" : ` (errno ${event.errno})`} from the kernel`,
      };
    case "wire.dns":
      return {
        kind: event.kind,
        code: event.answer,
        target: event.name,
        reason: `answered ${event.answer}`,
        sentence: `a DNS query for ${event.name} (${event.type}) crossed the wire and was answered ${event.answer}`,
      };
    default:
      return null;
  }
}

/**
 * The outcome a window is best summed up by when nothing specific was asked for: the first
 * refusal (the thing that stopped the command), else the first decision that is not the page
 * looking at itself (a refusal of the page's own endpoints, such as `tab-fetch` outside a run, counts), else null.
 */
export function mainOutcome(outcomes: readonly Outcome[]): Outcome | null {
  const tried = outcomes.filter((o) => !(o.own && o.allowed));
  return tried.find((o) => o.allowed === false) ?? tried.find((o) => o.allowed !== undefined) ?? tried[0] ?? null;
}

import type { Verdict, VerdictCode } from "../log";
import { evaluate, type Policy } from "../policy";
import { type LogLine, type ProxyDecisionEvent, requestOfDecision } from "./log-lines";

/**
 * A recorded log re-decided under another policy, request by request: did the policy's verdict
 * change? What is compared is the policy's own answer (allowed, or refused whether enforced or
 * reported); a decision refused after the policy allowed it, by something the upstream did (a
 * redirect's target, a certificate), cannot be re-decided without the upstream and says so.
 */

export type ReplayOutcome = "unchanged" | "newly-refused" | "newly-allowed" | "not-redecidable";
export const REPLAY_OUTCOMES: readonly ReplayOutcome[] = ["unchanged", "newly-refused", "newly-allowed", "not-redecidable"];

export interface ReplayRow {
  line: number;
  seq: number;
  method: string;
  target: string;
  /** The verdict on the log. */
  logged: { allowed: boolean; code: VerdictCode; wouldRefuse?: VerdictCode };
  /** The policy's verdict now. */
  replayed: Verdict;
  outcome: ReplayOutcome;
  note: string;
}

export interface ReplaySummary {
  requests: number;
  /** Proxy decisions for the proxy's own endpoints, which the host allowlist does not decide. */
  skipped: number;
  counts: Record<ReplayOutcome, number>;
  /** True when any verdict changed (newly refused or newly allowed). */
  changed: boolean;
}

export interface Replay {
  rows: ReplayRow[];
  summary: ReplaySummary;
}

// The refusals `evaluate` makes: the policy's answer itself.
const POLICY_CODES: ReadonlySet<VerdictCode> = new Set([
  "host-not-allowed",
  "endpoint-not-allowed",
  "port-not-allowed",
  "ip-literal",
  "not-https",
  "bad-request",
]);
// Refusals that depend only on the request, not on the policy or the upstream: the same again.
const REQUEST_CODES: ReadonlySet<VerdictCode> = new Set([
  "host-header-mismatch",
  "sni-mismatch",
  "sni-missing",
  "too-large",
  "tls-not-ready",
  "too-many-connections",
]);

export function replayLog(policy: Policy, lines: readonly LogLine[]): Replay {
  const rows: ReplayRow[] = [];
  let skipped = 0;
  for (const { line, event } of lines) {
    if (event.kind !== "proxy.decision") continue;
    const decision = event as ProxyDecisionEvent;
    const request = requestOfDecision(decision);
    if (!request) {
      skipped++;
      continue;
    }
    const replayed = evaluate(policy, request).verdict;
    rows.push({
      line,
      seq: decision.seq,
      method: decision.method,
      target: decision.target,
      logged: {
        allowed: decision.allowed,
        code: decision.code,
        ...(decision.wouldRefuse === undefined ? {} : { wouldRefuse: decision.wouldRefuse }),
      },
      replayed,
      ...compare(decision, replayed),
    });
  }
  const counts = { unchanged: 0, "newly-refused": 0, "newly-allowed": 0, "not-redecidable": 0 };
  for (const row of rows) counts[row.outcome]++;
  return {
    rows,
    summary: { requests: rows.length, skipped, counts, changed: counts["newly-refused"] + counts["newly-allowed"] > 0 },
  };
}

type State = "allowed" | "would-refuse" | "refused";

function stateOf(verdict: { allowed: boolean; wouldRefuse?: VerdictCode | undefined }): State {
  if (verdict.wouldRefuse !== undefined) return "would-refuse";
  return verdict.allowed ? "allowed" : "refused";
}

/**
 * Three states: allowed, would-refuse (served under report mode) and refused. A move towards
 * refused is newly refused (so switching report to enforce lists what will now break), a move
 * towards allowed is newly allowed.
 */
function compare(logged: ProxyDecisionEvent, replayed: Verdict): { outcome: ReplayOutcome; note: string } {
  const now = stateOf(replayed);
  const nowSays = replayed.wouldRefuse ? `would refuse ${replayed.wouldRefuse}` : replayed.code;
  const refusedLater = !logged.allowed && !POLICY_CODES.has(logged.code);
  if (refusedLater) {
    // The policy allowed it on the log; a later rule refused it.
    if (now !== "allowed") return { outcome: "newly-refused", note: `the policy now refuses it: ${nowSays}` };
    if (REQUEST_CODES.has(logged.code))
      return { outcome: "unchanged", note: `the policy allows it; ${logged.code} is not the policy's and refuses it again` };
    return {
      outcome: "not-redecidable",
      note: `the policy allows it; it was refused ${logged.code}, which depended on the upstream and cannot be re-decided from the log`,
    };
  }
  const was = stateOf(logged);
  if (was === now) return { outcome: "unchanged", note: was === "allowed" ? "allowed, as logged" : `still ${nowSays}` };
  const rank: Record<State, number> = { allowed: 0, "would-refuse": 1, refused: 2 };
  if (rank[now] > rank[was]) return { outcome: "newly-refused", note: `the policy now says ${nowSays}` };
  return { outcome: "newly-allowed", note: now === "allowed" ? "the policy now allows it" : `now served in report mode (${nowSays})` };
}

/** `line 12 #40 GET https://… served → host-not-allowed newly-refused: …` (the CLI's lines, the page's rows). */
export function describeReplayRow(row: ReplayRow): string {
  const was = row.logged.wouldRefuse ? `served (would refuse ${row.logged.wouldRefuse})` : row.logged.code;
  const now = row.replayed.wouldRefuse ? `served (would refuse ${row.replayed.wouldRefuse})` : row.replayed.code;
  return `line ${row.line} #${row.seq} ${row.method} ${row.target}  ${was} → ${now}  ${row.outcome}: ${row.note}`;
}

export function describeReplaySummary(summary: ReplaySummary): string {
  const { counts } = summary;
  return `${summary.requests} requests re-decided: ${counts.unchanged} unchanged, ${counts["newly-refused"]} newly refused, ${counts["newly-allowed"]} newly allowed, ${counts["not-redecidable"]} not re-decidable${summary.skipped > 0 ? ` (${summary.skipped} to the proxy's own endpoints skipped)` : ""}`;
}

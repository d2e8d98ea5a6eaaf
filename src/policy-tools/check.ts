import type { Verdict } from "../log";
import { endpointMatches, evaluate, findHostRule, type Policy, type PolicyRequest, type Target } from "../policy";

/**
 * "Would this be allowed?": one request line (`GET https://host/path`, or `CONNECT host:443`)
 * decided by the policy, with the rule that matched. Pure: nothing is fetched.
 */

export interface MatchingRule {
  /** Index in `policy.hosts`. */
  index: number;
  host: string;
  /** Index in the rule's `endpoints`, when it has endpoints and one matched. */
  endpoint: number | null;
  /** `hosts[0] api.github.com, endpoints[1] GET /repos/`. */
  text: string;
}

export interface CheckResult {
  request: PolicyRequest;
  verdict: Verdict;
  target: Target | null;
  rule: MatchingRule | null;
}

export type CheckParse = { ok: true; request: PolicyRequest } | { ok: false; reason: string };

/** `METHOD URL` (or `CONNECT host:port`), separated by spaces. */
export function parseRequestLine(text: string): CheckParse {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 2 || parts[0] === "" || parts[1] === undefined)
    return {
      ok: false,
      reason: `expected "METHOD URL" (e.g. "GET https://api.github.com/zen"), got ${JSON.stringify(text.slice(0, 120))}`,
    };
  const [method = "", target] = parts;
  if (method.toUpperCase() === "CONNECT") return { ok: true, request: { method: "CONNECT", authority: target } };
  return { ok: true, request: { method: method.toUpperCase(), url: target } };
}

export function checkRequest(policy: Policy, request: PolicyRequest): CheckResult {
  const decision = evaluate(policy, request);
  return { request, verdict: decision.verdict, target: decision.target, rule: matchingRule(policy, request, decision.target) };
}

function matchingRule(policy: Policy, request: PolicyRequest, target: Target | null): MatchingRule | null {
  if (!target) return null;
  const rule = findHostRule(policy, target.host);
  if (!rule) return null;
  const index = policy.hosts.indexOf(rule);
  const endpoint =
    "authority" in request || !rule.endpoints ? -1 : rule.endpoints.findIndex((e) => endpointMatches(e, request.method, target.path));
  const base = `hosts[${index}] ${rule.host}`;
  if (endpoint === -1 || !rule.endpoints)
    return { index, host: rule.host, endpoint: null, text: rule.endpoints ? base : `${base} (any method, any path)` };
  const e = rule.endpoints[endpoint]!;
  return { index, host: rule.host, endpoint, text: `${base}, endpoints[${endpoint}] ${e.methods.join(",")} ${e.paths.join(" ")}` };
}

/** The decision in the words the CLI prints and the page shows. */
export function describeCheck(result: CheckResult): string[] {
  const { verdict } = result;
  const lines = [`${verdict.allowed ? "allowed" : "refused"} ${verdict.code}: ${verdict.reason}`];
  if (verdict.wouldRefuse) lines.push(`would refuse ${verdict.wouldRefuse} (report mode): ${verdict.wouldRefuseReason ?? ""}`);
  lines.push(`rule: ${result.rule ? result.rule.text : "none matched"}`);
  return lines;
}

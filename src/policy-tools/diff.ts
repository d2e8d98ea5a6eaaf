import { canonicalJson, type HostRule, Policy } from "../policy";

/**
 * A drafted policy against the current one, rule by rule (a rule is a host's entry), so each
 * change can be accepted or rejected on its own.
 */

export type RuleChangeKind = "add" | "remove" | "change" | "same";

export interface RuleChange {
  kind: RuleChangeKind;
  host: string;
  before: HostRule | null;
  after: HostRule | null;
}

export function diffPolicies(base: Policy, draft: Policy): RuleChange[] {
  const drafted = new Map(draft.hosts.map((r) => [r.host, r]));
  const changes: RuleChange[] = base.hosts.map((before) => {
    const after = drafted.get(before.host) ?? null;
    if (!after) return { kind: "remove", host: before.host, before, after: null };
    const same = canonicalJson(before) === canonicalJson(after);
    return { kind: same ? "same" : "change", host: before.host, before, after };
  });
  const known = new Set(base.hosts.map((r) => r.host));
  for (const after of draft.hosts) if (!known.has(after.host)) changes.push({ kind: "add", host: after.host, before: null, after });
  return changes;
}

/** The base with the accepted changes applied; the rest of the base (mode, ports, vaults) is kept. */
export function applyRuleChanges(base: Policy, changes: readonly RuleChange[], accepted: (change: RuleChange) => boolean): Policy {
  const hosts: HostRule[] = [];
  for (const change of changes) {
    const take = change.kind !== "same" && accepted(change);
    const rule = take ? change.after : change.before;
    if (rule) hosts.push(rule);
  }
  return Policy.parse({ ...base, hosts });
}

/** `+ host …`, `- host …`, `~ host …` lines: the diff in text (the CLI's stderr, the page's list). */
export function describeRuleChange(change: RuleChange): string {
  const sign = { add: "+", remove: "-", change: "~", same: "=" }[change.kind];
  const rule = change.after ?? change.before;
  return `${sign} ${change.host} ${rule ? ruleSummary(rule) : ""}`.trimEnd();
}

export function ruleSummary(rule: HostRule): string {
  const ports = rule.ports ? ` ports ${rule.ports.join(",")}` : "";
  const mode = rule.mode ? ` (${rule.mode})` : "";
  if (!rule.endpoints) return `any method, any path${ports}${mode}`;
  return `${rule.endpoints.map((e) => `${e.methods.join(",")} ${e.paths.join(" ")}`).join("; ")}${ports}${mode}`;
}

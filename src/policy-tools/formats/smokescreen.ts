import { stringify } from "yaml";
import { z } from "zod";
import type { TranslatedLine } from "../../log";
import { HostPattern, Policy, type PolicyInput, privateNameReason } from "../../policy";
import { lineIssues, withPort } from "./line-parts";
import { readYamlAs } from "./read-yaml";

/**
 * stripe/smokescreen, in and out: its ACL (`version: v1`, `services[]`, `default`,
 * `global_allow_list`, `global_deny_list`) as a policy and back, and its
 * `CANONICAL-PROXY-DECISION` log lines as decisions a replay re-decides. What one side can say
 * and the other cannot is named, never dropped silently (docs/formats.md has the table).
 */

// ---- the decision log ---------------------------------------------------------------------

export const SMOKESCREEN_DECISION = "CANONICAL-PROXY-DECISION";

/** The fields of a decision line a replay needs (smokescreen writes more; they are kept out). */
const DecisionLine = z.object({
  msg: z.literal(SMOKESCREEN_DECISION),
  requested_host: z.string().min(1).max(300),
  allow: z.boolean(),
  proxy_type: z.enum(["connect", "http"]).optional(),
  decision_reason: z.string().optional(),
  enforce_would_deny: z.boolean().optional(),
  role: z.string().optional(),
  id: z.string().optional(),
  time: z.string().optional(),
});

const isSmokescreenLine = (value: unknown): value is { msg: string } =>
  typeof value === "object" && value !== null && typeof (value as { msg?: unknown }).msg === "string" && !("kind" in value);

/**
 * A smokescreen log line as this log's `proxy.decision` (for `readLogLines`' translate): a
 * CONNECT becomes `CONNECT host:port`, an HTTP proxy request `GET http://host:port/` (its
 * method and path are not logged; smokescreen decides by host). Allowed with
 * `enforce_would_deny` is report mode's would-refuse; a refusal for an address (a private or
 * non-unicast IP) is `private-address`, which a replay cannot re-decide, any other refusal the
 * allowlist's `host-not-allowed`. Other smokescreen lines are counted as skipped.
 */
export function smokescreenLine(value: unknown, line: number): TranslatedLine {
  if (!isSmokescreenLine(value)) return null;
  if (value.msg !== SMOKESCREEN_DECISION) return { skip: `smokescreen ${value.msg.slice(0, 60)}` };
  const parsed = DecisionLine.safeParse(value);
  if (!parsed.success)
    return {
      refuse: `not a valid smokescreen ${SMOKESCREEN_DECISION} line: ${lineIssues(parsed.error)}`,
    };
  const d = parsed.data;
  const connect = d.proxy_type !== "http";
  const authority = withPort(d.requested_host, connect);
  const reason = d.decision_reason ?? (d.allow ? "allowed" : "denied");
  const addressRefusal = /private|unicast|loopback|address|ip /i.test(reason);
  const code = d.allow ? "served" : addressRefusal ? "private-address" : "host-not-allowed";
  const time = d.time === undefined ? Number.NaN : Date.parse(d.time);
  return {
    event: {
      kind: "proxy.decision",
      seq: line,
      time: Number.isFinite(time) ? time : 0,
      id: d.id ?? `smokescreen-line-${line}`,
      mode: connect ? "connect" : "absolute",
      method: connect ? "CONNECT" : "GET",
      target: connect ? authority : `http://${authority}/`,
      status: d.allow ? 200 : 403,
      bytes: 0,
      durationMs: 0,
      allowed: d.allow,
      code,
      reason: `smokescreen${d.role ? ` (role ${d.role})` : ""}: ${reason}`,
      by: "proxy",
      ...(d.allow && d.enforce_would_deny ? { wouldRefuse: "host-not-allowed", wouldRefuseReason: reason } : {}),
    },
  };
}

// ---- the ACL ------------------------------------------------------------------------------

const Action = z.enum(["enforce", "report", "open"]);
const Rule = z.looseObject({
  name: z.string().optional(),
  project: z.string().optional(),
  action: Action,
  allowed_domains: z.array(z.string()).optional(),
});
const Acl = z.looseObject({
  version: z.literal("v1"),
  services: z.array(Rule.extend({ name: z.string() })).optional(),
  default: Rule.optional(),
  global_allow_list: z.array(z.string()).optional(),
  global_deny_list: z.array(z.string()).optional(),
});
type Rule = z.infer<typeof Rule>;

/** Rule keys a policy has no place for: each is named when met. */
const RULE_KEYS_NOT_EXPRESSED: Readonly<Record<string, string>> = {
  mitm_domains: "MITM (added headers, detailed HTTP logs) has no equal: the page's TLS client adds no headers",
  allowed_external_proxies: "external proxies have no equal: the page is the only network client",
  external_proxy_globs: "external proxies have no equal: the page is the only network client",
};
const KNOWN_RULE_KEYS = new Set(["name", "project", "action", "allowed_domains"]);

/**
 * Why an imported host may not become a rule (a private name the page refuses in every mode),
 * or null. Private-name classification is learn's (to be src/policy's one host classification).
 */
export function privateHostReason(host: string): string | null {
  const reason = privateNameReason(host.startsWith("*.") ? host.slice(2) : host);
  return reason ? `${reason}; the page never reaches a private destination` : null;
}

export interface Translated<T> {
  value: T;
  /** What was translated with a difference a reader must know, each by name. */
  notes: string[];
}

export type SmokescreenImport = ({ ok: true } & Translated<Policy>) | { ok: false; errors: string[] };

/** Whether a text looks like a smokescreen ACL (so `check|learn|replay` can take one directly). */
export function looksLikeSmokescreenAcl(text: string): boolean {
  return /^\s*version:\s*["']?v1["']?\s*$/m.test(text) && /^(services|default|global_allow_list|global_deny_list):/m.test(text);
}

const matchesGlob = (host: string, glob: string): boolean =>
  glob.startsWith("*.") ? host.endsWith(glob.slice(1)) && host.length > glob.length - 1 : host === glob;
/** Whether glob `inner` names only hosts `outer` matches. */
const globWithin = (inner: string, outer: string): boolean =>
  outer.startsWith("*.")
    ? inner.startsWith("*.")
      ? matchesGlob(inner.slice(2), outer) || inner === outer
      : matchesGlob(inner, outer)
    : inner === outer;

/**
 * An ACL as a policy, for one role (smokescreen decides per client role; a policy is one
 * client's): the role's service, or the default rule. Its allowed domains, then the global
 * allow list less what the global deny list takes back (smokescreen's order: the role's
 * domains, the deny list, the allow list), in the rule's mode.
 */
export function importSmokescreenAcl(text: string, options: { role?: string } = {}): SmokescreenImport {
  const read = readYamlAs(text, Acl, "acl");
  if (!read.ok) return read;
  const acl = read.value;
  const notes: string[] = [];
  const services = acl.services ?? [];
  let rule: Rule | undefined;
  let which: string;
  if (options.role !== undefined) {
    rule = services.find((s) => s.name === options.role);
    which = `service ${options.role}`;
    if (!rule) {
      rule = acl.default;
      which = "the default rule";
      notes.push(
        `role ${options.role} has no service; smokescreen uses ${acl.default ? "the default rule" : "no rule and denies everything"}`,
      );
    }
  } else if (acl.default) {
    rule = acl.default;
    which = "the default rule";
    if (services.length > 0) notes.push(`${services.length} services not imported (a policy is one role's; name one with --role)`);
  } else if (services.length === 1) {
    rule = services[0];
    which = `service ${services[0]?.name}`;
  } else return { ok: false, errors: [`the ACL has ${services.length} services and no default rule: name the role to import with --role`] };

  for (const key of Object.keys(rule ?? {}))
    if (!KNOWN_RULE_KEYS.has(key))
      notes.push(`${which}: ${key} not imported: ${RULE_KEYS_NOT_EXPRESSED[key] ?? "a key this translation does not know"}`);
  if (rule?.project) notes.push(`${which}: project ${rule.project} is a label for smokescreen's logs; not imported`);

  const hosts = new Map<string, PolicyInput["hosts"][number]>();
  const add = (glob: string, from: string) => {
    const host = HostPattern.safeParse(glob);
    if (!host.success) {
      notes.push(`${from} ${JSON.stringify(glob)} not imported: ${host.error.issues.map((i) => i.message).join("; ")}`);
      return;
    }
    const privateHost = privateHostReason(host.data);
    if (privateHost) {
      notes.push(`${from} ${JSON.stringify(glob)} not imported: ${privateHost}`);
      return;
    }
    if (!hosts.has(host.data)) hosts.set(host.data, { host: host.data });
  };
  for (const glob of rule?.allowed_domains ?? []) add(glob, `${which}: allowed_domains`);
  const deny = acl.global_deny_list ?? [];
  for (const glob of acl.global_allow_list ?? []) {
    const takenBack = deny.filter((d) => globWithin(glob, d));
    if (takenBack.length > 0) {
      notes.push(`global_allow_list ${glob} not imported: global_deny_list ${takenBack.join(", ")} takes it back`);
      continue;
    }
    const holes = deny.filter((d) => globWithin(d, glob) && d !== glob);
    if (holes.length > 0) {
      // A policy cannot say "all of *.x except bad.x": it keeps the deny (fails closed) and says so.
      notes.push(
        `global_allow_list ${glob} not imported: global_deny_list ${holes.join(", ")} would be a hole in it, which a policy (an allowlist) cannot express; refused instead`,
      );
      continue;
    }
    add(glob, "global_allow_list");
  }
  const action = rule?.action ?? "enforce";
  if (action === "report" && deny.length > 0)
    notes.push(
      `global_deny_list (${deny.join(", ")}): smokescreen refuses these even in report mode; a policy in report mode serves them marked would-refuse`,
    );
  if (action === "open")
    notes.push(
      `${which}: action open (allow everything) has no equal; imported as report mode, which serves everything and marks what the allowlist would refuse`,
    );
  if (!rule) notes.push("no rule applies: the policy allows nothing (smokescreen: no rule matched)");
  notes.push("smokescreen's ACL does not restrict ports; the policy allows 443 (add `ports` to allow more)");
  const policy = Policy.parse({
    version: 1,
    ...(action === "enforce" ? {} : { mode: "report" }),
    hosts: [...hosts.values()],
  });
  return { ok: true, value: policy, notes };
}

/**
 * A policy as an ACL: its hosts are the allowed domains of one rule (the default rule, or the
 * service `role`), in its mode. Smokescreen decides hosts only: endpoints, per-host ports and
 * modes, vaults and http handling are named where they are widened or lost.
 */
export function exportSmokescreenAcl(policy: Policy, options: { role?: string } = {}): Translated<string> {
  const notes: string[] = [];
  for (const rule of policy.hosts) {
    if (rule.endpoints)
      notes.push(`${rule.host}: endpoints (methods and paths) cannot be expressed; the ACL allows every request to the host`);
    if (rule.ports)
      notes.push(`${rule.host}: ports ${rule.ports.join(",")} cannot be expressed; smokescreen's ACL does not restrict ports`);
    if (rule.mode && rule.mode !== (policy.mode ?? "enforce"))
      notes.push(`${rule.host}: mode ${rule.mode} cannot be expressed per host; the rule's action is ${policy.mode ?? "enforce"}`);
  }
  if (policy.ports.some((p) => p !== 443))
    notes.push(`ports ${policy.ports.join(",")} cannot be expressed; smokescreen's ACL does not restrict ports`);
  if (policy.http !== "upgrade") notes.push(`http: ${policy.http} cannot be expressed; smokescreen proxies plain http by host`);
  if (policy.vaults.length > 0) notes.push(`vaults ${policy.vaults.join(", ")} cannot be expressed: smokescreen has no vault`);
  const rule = { project: "linux-in-a-tab", action: policy.mode ?? "enforce", allowed_domains: policy.hosts.map((r) => r.host) };
  const acl =
    options.role === undefined
      ? { version: "v1", services: [], default: rule }
      : { version: "v1", services: [{ name: options.role, ...rule }] };
  return { value: stringify(acl), notes };
}

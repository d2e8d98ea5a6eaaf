import {
  canonicalRequestPath,
  type EndpointRule,
  evaluate,
  HostRule,
  type HttpHandling,
  Policy,
  type PolicyInput,
  readHost,
} from "../policy";
import { type LogLine, type ProxyDecisionEvent, requestOfDecision } from "./log-lines";

/**
 * A policy drafted from a log: the smallest one that allows exactly the requests the log shows
 * served or would-refuse (report mode). Hosts, their ports, methods and path prefixes cut to
 * `depth` segments. Never an IP (the proxy never serves one) and never a private name.
 */

export const DEFAULT_LEARN_DEPTH = 2;

export interface LearnOptions {
  /** Path segments kept in a prefix: `/repos/a/b` at depth 2 is `/repos/a/`. */
  depth?: number;
  /** The policy the draft replaces: its ports, http handling and vaults are kept. */
  base?: Policy;
}

export interface LearnSkip {
  line: number;
  target: string;
  reason: string;
}

export interface Learned {
  policy: Policy;
  /** Requests the log shows served that the draft does not allow, and why. */
  skipped: LearnSkip[];
  /** How many requests the draft was built from. */
  learnedFrom: number;
  notes: string[];
}

/**
 * Why a host a log names may not become a rule, or null: the one place learn asks what a host
 * is (what the log claims is untrusted). `raw` is the host as the log wrote it, before any URL
 * parser saw it: engines differ on `*` (Chromium writes `%2A`, Node keeps `*`), so the wildcard
 * is refused on the text itself and the page and the CLI draft the same policy. `name` is the
 * normalised name the policy parsed. Private and IP-literal classification is src/policy's
 * (`readHost`, the one reading the proxy refuses `private-address` and `ip-literal` by).
 */
export function unlearnableHostReason(raw: string, name: string): string | null {
  if (/\*|%2a/i.test(raw))
    return `the host ${JSON.stringify(raw.slice(0, 80))} contains a wildcard (*); a log records requests, never patterns, so a draft never allows one`;
  if (raw.includes("%"))
    return `the host ${JSON.stringify(raw.slice(0, 80))} is percent-encoded; a draft names hosts only as they are spelled`;
  // readHost remembers each reading: a log names few hosts many times.
  const host = readHost(name);
  if (host.kind === "invalid") return host.reason;
  if (host.kind === "ip-literal") return `${name} is an IP address; only names can be allowed`;
  return host.kind === "private-name" ? host.why : null;
}

/** The host part of a logged target as written: `h` of `https://u@h:1/p` or of `h:443` (CONNECT). */
function rawHostOf(target: string, connect: boolean): string {
  const authority = connect ? target : (/^[A-Za-z][A-Za-z0-9+.-]*:[/\\]{2}([^/\\?#]*)/.exec(target)?.[1] ?? "");
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

/** `/repos/a/b` → `/repos/a/` at depth 2; a path no deeper than depth is kept whole. */
export function prefixAtDepth(path: string, depth: number): string {
  const segments = path.slice(1).split("/");
  if (segments.length <= depth) return path;
  return `/${segments.slice(0, depth).join("/")}${depth === 0 ? "" : "/"}`;
}

interface HostSeen {
  ports: Set<number>;
  methods: Map<string, Set<string>>;
}

export function learnPolicy(lines: readonly LogLine[], options: LearnOptions = {}): Learned {
  const depth = options.depth ?? DEFAULT_LEARN_DEPTH;
  const base = options.base;
  const decisions = lines.flatMap((l) =>
    l.event.kind === "proxy.decision" && (l.event.allowed || l.event.wouldRefuse !== undefined)
      ? [{ line: l.line, event: l.event as ProxyDecisionEvent }]
      : [],
  );
  // Plain http is kept only when the log shows it fetched as plain http (the policy said `allow`).
  const fetchedHttp = decisions.some((d) => (d.event.upstream ?? d.event.target).startsWith("http://") && d.event.mode !== "connect");
  const http: HttpHandling = base?.http ?? (fetchedHttp ? "allow" : "upgrade");
  const defaultPorts = base?.ports ?? [443];
  // With no rule, `evaluate` still parses the target (host-not-allowed carries it): the normalised host, port and path.
  const parser = Policy.parse({ version: 1, hosts: [], http });
  const hosts = new Map<string, HostSeen>();
  const skipped: LearnSkip[] = [];
  let learnedFrom = 0;
  for (const { line, event } of decisions) {
    const request = requestOfDecision(event);
    if (!request) continue;
    const evaluated = evaluate(parser, request);
    const target = evaluated.target;
    if (!target) {
      skipped.push({ line, target: event.target, reason: `the target is not one the policy decides: ${evaluated.verdict.reason}` });
      continue;
    }
    const raw = rawHostOf(event.target, "authority" in request);
    const unlearnable = unlearnableHostReason(raw, target.host);
    if (unlearnable) {
      skipped.push({ line, target: event.target, reason: `${unlearnable}; a drafted policy never allows one` });
      continue;
    }
    const seen = hosts.get(target.host) ?? { ports: new Set<number>(), methods: new Map<string, Set<string>>() };
    hosts.set(target.host, seen);
    seen.ports.add(target.port);
    learnedFrom++;
    if ("authority" in request) continue;
    const path = canonicalRequestPath(target.path);
    if (!path.ok) {
      skipped.push({ line, target: event.target, reason: `the path ${path.reason}` });
      continue;
    }
    const prefixes = seen.methods.get(request.method) ?? new Set<string>();
    seen.methods.set(request.method, prefixes);
    prefixes.add(prefixAtDepth(path.path, depth));
  }
  const notes: string[] = [];
  const rules: PolicyInput["hosts"] = [];
  for (const host of [...hosts.keys()].sort()) {
    const seen = hosts.get(host)!;
    const ports = [...seen.ports].sort((a, b) => a - b);
    const rule: PolicyInput["hosts"][number] = { host };
    if (!ports.every((p) => defaultPorts.includes(p))) rule.ports = ports;
    if (seen.methods.size > 0) rule.endpoints = endpointRules(seen.methods);
    // Every check above should make this hold; if one is missed, the host is reported, never a crash.
    const valid = HostRule.safeParse(rule);
    if (!valid.success) {
      notes.push(`${host}: not drafted: ${valid.error.issues.map((i) => i.message).join("; ")}`);
      continue;
    }
    if (seen.methods.size === 0) notes.push(`${host}: only CONNECT was seen, so the rule has no endpoints (any request in the tunnel)`);
    rules.push(rule);
  }
  const policy = Policy.parse({
    version: 1,
    hosts: rules,
    ...(base ? { ports: base.ports, vaults: base.vaults } : {}),
    ...(http === "upgrade" ? {} : { http }),
  });
  return { policy, skipped, learnedFrom, notes };
}

/**
 * Methods with the same prefixes share one rule; a prefix another one covers is dropped. A
 * prefix covering `p` is a head of `p` ending at a slash (`/a/` covers `/a/b`) or just before
 * one (`/a` covers `/a/b`), so each prefix looks up only its own heads: linear in the prefixes.
 */
function endpointRules(methods: Map<string, Set<string>>): EndpointRule[] {
  const byPaths = new Map<string, string[]>();
  for (const [method, prefixes] of methods) {
    const kept = [...prefixes].filter((p) => !coveredByAnother(p, prefixes)).sort();
    const key = kept.join("\n");
    const list = byPaths.get(key);
    if (list) list.push(method);
    else byPaths.set(key, [method]);
  }
  return [...byPaths.entries()]
    .map(([paths, list]) => ({ methods: list.sort(), paths: paths.split("\n") }))
    .sort((a, b) => (a.methods[0]! < b.methods[0]! ? -1 : 1));
}

function coveredByAnother(prefix: string, prefixes: ReadonlySet<string>): boolean {
  for (let at = prefix.indexOf("/", 1); at !== -1; at = prefix.indexOf("/", at + 1)) {
    if (prefixes.has(prefix.slice(0, at))) return true;
    if (at + 1 < prefix.length && prefixes.has(prefix.slice(0, at + 1))) return true;
  }
  // `/` covers everything.
  return prefix !== "/" && prefixes.has("/");
}

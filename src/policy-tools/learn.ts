import { canonicalRequestPath, type EndpointRule, evaluate, type HttpHandling, Policy, type PolicyInput, pathHasPrefix } from "../policy";
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

// Names that only mean something inside one network: a draft must never open them.
const PRIVATE_SUFFIXES = [".localhost", ".local", ".internal", ".lan", ".home.arpa", ".intranet", ".corp", ".private", ".test"];

/** Why a name is private (never learned), or null for a public-looking name. */
export function privateNameReason(name: string): string | null {
  if (name === "localhost") return "localhost is a private name";
  if (!name.includes(".")) return `${name} is a single-label (private) name`;
  const suffix = PRIVATE_SUFFIXES.find((s) => name.endsWith(s));
  return suffix ? `${name} is under ${suffix}, a private name` : null;
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
    const target = evaluate(parser, request).target;
    if (!target) {
      skipped.push({ line, target: event.target, reason: "the target does not parse as a URL the policy decides" });
      continue;
    }
    const privateName = privateNameReason(target.host);
    if (privateName) {
      skipped.push({ line, target: event.target, reason: `${privateName}; a drafted policy never allows one` });
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
  const rules: PolicyInput["hosts"] = [...hosts.keys()].sort().map((host) => {
    const seen = hosts.get(host)!;
    const ports = [...seen.ports].sort((a, b) => a - b);
    const rule: PolicyInput["hosts"][number] = { host };
    if (!ports.every((p) => defaultPorts.includes(p))) rule.ports = ports;
    if (seen.methods.size === 0) notes.push(`${host}: only CONNECT was seen, so the rule has no endpoints (any request in the tunnel)`);
    else rule.endpoints = endpointRules(seen.methods);
    return rule;
  });
  const policy = Policy.parse({
    version: 1,
    hosts: rules,
    ...(base ? { ports: base.ports, vaults: base.vaults } : {}),
    ...(http === "upgrade" ? {} : { http }),
  });
  return { policy, skipped, learnedFrom, notes };
}

/** Methods with the same prefixes share one rule; a prefix another one covers is dropped. */
function endpointRules(methods: Map<string, Set<string>>): EndpointRule[] {
  const byPaths = new Map<string, string[]>();
  for (const [method, prefixes] of methods) {
    const kept = [...prefixes].filter((p) => ![...prefixes].some((q) => q !== p && pathHasPrefix(p, q))).sort();
    const key = kept.join("\n");
    byPaths.set(key, [...(byPaths.get(key) ?? []), method]);
  }
  return [...byPaths.entries()]
    .map(([paths, list]) => ({ methods: list.sort(), paths: paths.split("\n") }))
    .sort((a, b) => (a.methods[0]! < b.methods[0]! ? -1 : 1));
}

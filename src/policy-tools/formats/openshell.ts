import { stringify } from "yaml";
import { z } from "zod";
import { type EndpointRule, HostPattern, Policy, type PolicyInput } from "../../policy";
import { readYamlAs } from "./read-yaml";
import { privateHostReason, type Translated } from "./smokescreen";

/**
 * NVIDIA OpenShell: the sandbox policy's `network_policies` (named groups of endpoints, each a
 * host and port, `enforcement: enforce|audit`, and L7 `rules` of `allow: {method, path}` with
 * globs). Its OCSF logs are not read yet. docs/formats.md has the table.
 */

const AllowRule = z.looseObject({ allow: z.looseObject({ method: z.string().optional(), path: z.string().optional() }) });
const Endpoint = z.looseObject({
  host: z.string(),
  port: z.number().int().min(1).max(65535).optional(),
  enforcement: z.enum(["enforce", "audit"]).optional(),
  rules: z.array(AllowRule).optional(),
  deny_rules: z.array(z.unknown()).optional(),
});
const NetworkPolicy = z.looseObject({ name: z.string().optional(), endpoints: z.array(Endpoint).default([]) });
const SandboxPolicy = z.looseObject({ network_policies: z.record(z.string(), NetworkPolicy) });
type Endpoint = z.infer<typeof Endpoint>;

export type OpenShellImport = ({ ok: true } & Translated<Policy>) | { ok: false; errors: string[] };

/** Whether a text looks like an OpenShell sandbox policy. */
export function looksLikeOpenShellPolicy(text: string): boolean {
  return /^network_policies:/m.test(text);
}

/** A path glob as a prefix: `/**`, absent or `**` is any path, `/a/**` is `/a/`, `/a` is `/a` (and `/a/…`: wider, named); other globs are null. */
function prefixOf(path: string | undefined): { prefix: string | null; wider: boolean } | null {
  if (path === undefined || path === "**" || path === "/**") return { prefix: null, wider: false };
  if (path.endsWith("/**") && !/[*?[\]{}]/.test(path.slice(0, -3))) return { prefix: path.slice(0, -2), wider: false };
  if (!/[*?[\]{}]/.test(path) && path.startsWith("/")) return { prefix: path, wider: true };
  return null;
}

interface HostDraft {
  ports: Set<number>;
  modes: Set<"enforce" | "audit">;
  /** null: any method on any path. */
  endpoints: Map<string, Set<string>> | null;
}

export function importOpenShellPolicy(text: string): OpenShellImport {
  const read = readYamlAs(text, SandboxPolicy, "policy");
  if (!read.ok) return read;
  const notes: string[] = [];
  for (const key of Object.keys(read.value))
    if (key !== "network_policies" && key !== "version")
      notes.push(`${key} not imported: the guest's own sandbox (llrun, Landlock) is configured apart`);

  const hosts = new Map<string, HostDraft>();
  for (const [id, group] of Object.entries(read.value.network_policies)) {
    for (const key of Object.keys(group))
      if (key === "binaries") notes.push(`network_policies.${id}.binaries not imported: the page cannot tell the guest's programs apart`);
    for (const endpoint of group.endpoints) addEndpoint(`network_policies.${id}`, endpoint, hosts, notes);
  }
  const rules: PolicyInput["hosts"] = [];
  for (const [host, draft] of hosts) {
    if (draft.endpoints?.size === 0) {
      notes.push(`${host} not imported: none of its rules could be expressed; left out (fails closed)`);
      continue;
    }
    const rule: PolicyInput["hosts"][number] = { host };
    const ports = [...draft.ports].sort((a, b) => a - b);
    if (!(ports.length === 1 && ports[0] === 443)) rule.ports = ports;
    if (draft.modes.size === 1 && draft.modes.has("audit")) rule.mode = "report";
    else if (draft.modes.size > 1) notes.push(`${host}: audit and enforce endpoints together; enforced`);
    if (draft.endpoints) rule.endpoints = endpointRules(draft.endpoints);
    rules.push(rule);
  }
  return { ok: true, value: Policy.parse({ version: 1, hosts: rules }), notes };
}

function addEndpoint(where: string, endpoint: Endpoint, hosts: Map<string, HostDraft>, notes: string[]): void {
  const name = `${where} ${endpoint.host}`;
  for (const key of Object.keys(endpoint))
    if (!["host", "port", "enforcement", "rules", "deny_rules", "protocol"].includes(key))
      notes.push(`${name}: ${key} not imported: a key this translation does not know`);
  const host = HostPattern.safeParse(endpoint.host);
  if (!host.success) {
    notes.push(`${name} not imported: ${host.error.issues.map((i) => i.message).join("; ")}`);
    return;
  }
  const privateHost = privateHostReason(host.data);
  if (privateHost) {
    notes.push(`${name} not imported: ${privateHost}`);
    return;
  }
  if (endpoint.deny_rules && endpoint.deny_rules.length > 0) {
    notes.push(
      `${name} not imported: deny_rules cannot be expressed (a policy is an allowlist, without exceptions); left out (fails closed)`,
    );
    return;
  }
  const draft = hosts.get(host.data) ?? { ports: new Set<number>(), modes: new Set<"enforce" | "audit">(), endpoints: new Map() };
  hosts.set(host.data, draft);
  draft.ports.add(endpoint.port ?? 443);
  draft.modes.add(endpoint.enforcement ?? "enforce");
  if (!endpoint.rules || endpoint.rules.length === 0) {
    draft.endpoints = null;
    return;
  }
  if (draft.endpoints === null) return;
  for (const { allow } of endpoint.rules) {
    const method = (allow.method ?? "*").toUpperCase();
    const prefix = prefixOf(allow.path);
    if (!prefix) {
      notes.push(
        `${name}: rule ${method} ${allow.path} not imported: a glob inside a path cannot be expressed as a prefix; refused instead`,
      );
      continue;
    }
    if (prefix.wider)
      notes.push(
        `${name}: rule ${method} ${allow.path} imported as the prefix ${prefix.prefix}, which also allows ${prefix.prefix}/… (wider)`,
      );
    const paths = draft.endpoints.get(method) ?? new Set<string>();
    paths.add(prefix.prefix ?? "/");
    draft.endpoints.set(method, paths);
  }
}

function endpointRules(byMethod: Map<string, Set<string>>): EndpointRule[] {
  return [...byMethod.entries()].map(([method, paths]) => ({ methods: [method], paths: [...paths] }));
}

/** A policy as an OpenShell sandbox policy's `network_policies` (one group, `tab`). */
export function exportOpenShellPolicy(policy: Policy): Translated<string> {
  const notes: string[] = [];
  const endpoints: Record<string, unknown>[] = [];
  for (const rule of policy.hosts) {
    const mode = rule.mode ?? policy.mode ?? "enforce";
    const rules = rule.endpoints?.flatMap((e) =>
      e.methods.flatMap((method) =>
        e.paths.flatMap((path) =>
          (path.endsWith("/") ? [`${path}**`] : [path, `${path}/**`]).map((glob) => ({ allow: { method, path: glob } })),
        ),
      ),
    );
    for (const port of rule.ports ?? policy.ports)
      endpoints.push({
        host: rule.host,
        port,
        ...(mode === "report" ? { enforcement: "audit" } : {}),
        ...(rules ? { protocol: "rest", rules } : {}),
      });
  }
  if (policy.http !== "upgrade") notes.push(`http: ${policy.http} cannot be expressed`);
  if (policy.vaults.length > 0) notes.push(`vaults ${policy.vaults.join(", ")} cannot be expressed: OpenShell has no vault`);
  return { value: stringify({ version: 1, network_policies: { tab: { name: "linux-in-a-tab", endpoints } } }), notes };
}

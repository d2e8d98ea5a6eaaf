import { stringify } from "yaml";
import { z } from "zod";
import { HostPattern, Policy, type PolicyInput } from "../../policy";
import { readYamlAs } from "./read-yaml";
import { privateHostReason, type Translated } from "./smokescreen";

/**
 * github/gh-aw-firewall (`awf --config`): the config's `network.allowDomains` and
 * `network.blockDomains` (JSON or YAML). In awf a domain allows itself and every subdomain,
 * `*.example.com` its subdomains; a blocked domain wins over an allowed one. Its audit log is
 * not read yet. docs/formats.md has the table.
 */

const Network = z.looseObject({
  allowDomains: z.array(z.string()).optional(),
  blockDomains: z.array(z.string()).optional(),
});
const Config = z.looseObject({ network: Network.optional() });

export type AwfImport = ({ ok: true } & Translated<Policy>) | { ok: false; errors: string[] };

/** Whether a text looks like an awf config with a network section. */
export function looksLikeAwfConfig(text: string): boolean {
  return /["']?(allowDomains|blockDomains)["']?\s*:/.test(text);
}

/** `https://a.com` → `a.com`, with the scheme named; awf's own prefixes restrict a domain to one scheme. */
function stripScheme(entry: string): { host: string; scheme: string | null } {
  const match = /^(https?):\/\/([^/]*)\/?$/i.exec(entry);
  return match ? { host: match[2]!, scheme: match[1]!.toLowerCase() } : { host: entry, scheme: null };
}

/** The names an awf entry allows, as policy patterns: `a.com` is `a.com` and `*.a.com`. */
const patternsOf = (host: string): string[] => (host.startsWith("*.") ? [host] : [host, `*.${host}`]);
const matches = (pattern: string, host: string): boolean =>
  pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1 : pattern === host;
/** Whether every name `inner` allows is blocked by `block` (an awf entry: itself and its subdomains). */
const blockedWhole = (inner: string, block: string): boolean => {
  const base = inner.startsWith("*.") ? inner.slice(2) : inner;
  return block.startsWith("*.")
    ? matches(block, base) || (inner.startsWith("*.") && base === block.slice(2))
    : base === block || base.endsWith(`.${block}`);
};

export function importAwfConfig(text: string): AwfImport {
  const read = readYamlAs(text, Config, "config");
  if (!read.ok) return read;
  const network = read.value.network;
  if (!network) return { ok: false, errors: ["no network section with allowDomains"] };
  const notes: string[] = [];
  for (const key of Object.keys(read.value))
    if (key !== "network" && key !== "$schema")
      notes.push(`${key} not imported: it configures awf's containers, not which hosts are reached`);
  for (const key of Object.keys(network))
    if (key !== "allowDomains" && key !== "blockDomains") notes.push(`network.${key} not imported: the page is the only network client`);

  const blocks = (network.blockDomains ?? []).map((entry) => stripScheme(entry).host.toLowerCase().replace(/\.$/, ""));
  const hosts = new Map<string, PolicyInput["hosts"][number]>();
  for (const entry of network.allowDomains ?? []) {
    const { host: raw, scheme } = stripScheme(entry);
    if (scheme === "http")
      notes.push(`network.allowDomains ${entry}: plain http only cannot be expressed; imported as the host (https, http upgraded)`);
    for (const pattern of patternsOf(raw)) {
      const host = HostPattern.safeParse(pattern);
      if (!host.success) {
        notes.push(`network.allowDomains ${entry} not imported: ${host.error.issues.map((i) => i.message).join("; ")}`);
        break;
      }
      const privateHost = privateHostReason(host.data);
      if (privateHost) {
        notes.push(`network.allowDomains ${entry} not imported: ${privateHost}`);
        break;
      }
      const blockedBy = blocks.find((b) => blockedWhole(host.data, b));
      if (blockedBy) {
        notes.push(`network.allowDomains ${entry}: ${host.data} not imported: blockDomains ${blockedBy} takes it back`);
        continue;
      }
      // Only a wildcard can have a hole: a block under it that does not take all of it.
      const holes = host.data.startsWith("*.") ? blocks.filter((b) => matches(host.data, b.startsWith("*.") ? b.slice(2) : b)) : [];
      if (holes.length > 0) {
        notes.push(
          `network.allowDomains ${entry}: ${host.data} not imported: blockDomains ${holes.join(", ")} would be a hole in it, which a policy (an allowlist) cannot express; refused instead`,
        );
        continue;
      }
      if (!hosts.has(host.data)) hosts.set(host.data, { host: host.data });
    }
  }
  return { ok: true, value: Policy.parse({ version: 1, hosts: [...hosts.values()] }), notes };
}

/**
 * A policy as an awf config. awf's `a.com` also allows every subdomain: a policy that names
 * `a.com` alone is written with `*.a.com` blocked when no other rule needs its subdomains, and
 * named as wider when one does. Endpoints, ports, report mode, http handling and vaults are named.
 */
export function exportAwfConfig(policy: Policy): Translated<string> {
  const notes: string[] = [];
  const names = new Set(policy.hosts.map((r) => r.host));
  const allowDomains: string[] = [];
  const blockDomains: string[] = [];
  for (const rule of policy.hosts) {
    const host = rule.host;
    if (host.startsWith("*.")) {
      // `*.a.com` and `a.com` together are awf's `a.com`.
      if (!names.has(host.slice(2))) allowDomains.push(host);
    } else if (names.has(`*.${host}`)) allowDomains.push(host);
    else if (policy.hosts.some((r) => r.host !== host && r.host.endsWith(`.${host}`))) {
      allowDomains.push(host);
      notes.push(`${host}: awf's entry also allows every subdomain of ${host} (wider than the policy)`);
    } else {
      allowDomains.push(host);
      blockDomains.push(`*.${host}`);
    }
    if (rule.endpoints) notes.push(`${host}: endpoints (methods and paths) cannot be expressed; awf allows every request to the host`);
    if (rule.ports) notes.push(`${host}: ports ${rule.ports.join(",")} cannot be expressed; awf decides by domain`);
  }
  if (policy.ports.some((p) => p !== 443)) notes.push(`ports ${policy.ports.join(",")} cannot be expressed; awf decides by domain`);
  if (policy.mode === "report") notes.push("report mode cannot be expressed: awf enforces its lists");
  if (policy.http !== "upgrade") notes.push(`http: ${policy.http} cannot be expressed`);
  if (policy.vaults.length > 0) notes.push(`vaults ${policy.vaults.join(", ")} cannot be expressed: awf has no vault`);
  return { value: stringify({ network: { allowDomains, blockDomains } }), notes };
}

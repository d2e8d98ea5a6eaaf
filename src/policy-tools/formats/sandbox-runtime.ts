import { z } from "zod";
import { messageOf } from "../../platform";
import { HostPattern, Policy, type PolicyInput } from "../../policy";
import { privateHostReason, type Translated } from "./smokescreen";

/**
 * anthropics/sandbox-runtime (`srt`) and Claude Code: the settings' network section,
 * `allowedDomains` and `deniedDomains` (`example.com`, `*.example.com` for strict subdomains,
 * an optional `:port` that restricts an entry to that port; denied entries win). It is found
 * at the top (`~/.srt-settings.json`) or under `sandbox` (Claude Code's settings). There is no
 * log to read: a settings file is all such a user brings. docs/formats.md has the table.
 */

const NetworkSection = z.looseObject({
  allowedDomains: z.array(z.string()).optional(),
  deniedDomains: z.array(z.string()).optional(),
});
const Settings = z.looseObject({
  network: NetworkSection.optional(),
  sandbox: z.looseObject({ network: NetworkSection.optional() }).optional(),
});

export type SandboxRuntimeImport = ({ ok: true } & Translated<Policy>) | { ok: false; errors: string[] };

const NETWORK_KEYS = new Set(["allowedDomains", "deniedDomains"]);

/** Whether a text looks like srt or Claude Code settings with a network section. */
export function looksLikeSandboxRuntimeSettings(text: string): boolean {
  return /"(allowedDomains|deniedDomains)"\s*:/.test(text) && !/"version"\s*:\s*1\b/.test(text);
}

/** `host` and its port (`undefined`: every port) of one entry; an unbracketed IPv6 is left whole. */
function splitEntry(entry: string): { host: string; port: number | undefined } {
  const match = /^(.*[^:]):([1-9]\d{0,4})$/.exec(entry);
  if (!match || (match[1]!.includes(":") && !match[1]!.startsWith("["))) return { host: entry, port: undefined };
  const port = Number(match[2]);
  return port > 65535 ? { host: entry, port: undefined } : { host: match[1]!, port };
}

const covers = (outer: string, inner: string): boolean => {
  if (outer === "*") return true;
  if (!outer.startsWith("*.")) return outer === inner;
  const suffix = outer.slice(1);
  return inner.startsWith("*.") ? inner.slice(1).endsWith(suffix) : inner.endsWith(suffix) && inner.length > suffix.length;
};

/**
 * The settings' network lists as a policy (enforced: srt denies what no entry allows). A
 * denied entry that equals or covers an allowed one removes it; one inside an allowed wildcard
 * would be a hole a policy (an allowlist) cannot express, so the wildcard is left out (fails
 * closed). An entry without a port allows every port: the policy allows its ports (443), named.
 */
export function importSandboxRuntimeSettings(text: string): SandboxRuntimeImport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, errors: [`not JSON: ${messageOf(error)}`] };
  }
  const parsed = Settings.safeParse(json);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join(".") || "(settings)"}: ${i.message}`) };
  const network = parsed.data.network ?? parsed.data.sandbox?.network;
  const where = parsed.data.network ? "network" : "sandbox.network";
  if (!network) return { ok: false, errors: ["no network section (network or sandbox.network) with allowedDomains"] };
  const notes: string[] = [];
  for (const key of Object.keys(network))
    if (!NETWORK_KEYS.has(key)) notes.push(`${where}.${key} not imported: the policy has no equal (the page is the only network client)`);

  const denied = (network.deniedDomains ?? []).map((e) => {
    const { host, port } = splitEntry(e);
    return { host: host.toLowerCase().replace(/\.$/, ""), port };
  });
  const rules = new Map<string, { ports: Set<number> | "every" }>();
  for (const entry of network.allowedDomains ?? []) {
    const { host: raw, port } = splitEntry(entry);
    const host = HostPattern.safeParse(raw);
    if (!host.success) {
      notes.push(`${where}.allowedDomains ${entry} not imported: ${host.error.issues.map((i) => i.message).join("; ")}`);
      continue;
    }
    const privateHost = privateHostReason(host.data);
    if (privateHost) {
      notes.push(`${where}.allowedDomains ${entry} not imported: ${privateHost}`);
      continue;
    }
    const takenBack = denied.filter((d) => (d.port === undefined || d.port === port) && covers(d.host, host.data));
    if (takenBack.length > 0) {
      notes.push(`${where}.allowedDomains ${entry} not imported: deniedDomains ${takenBack.map((d) => d.host).join(", ")} takes it back`);
      continue;
    }
    const holes = denied.filter((d) => d.host !== host.data && covers(host.data, d.host));
    if (holes.length > 0) {
      notes.push(
        `${where}.allowedDomains ${entry} not imported: deniedDomains ${holes.map((d) => d.host).join(", ")} would be a hole in it, which a policy (an allowlist) cannot express; refused instead`,
      );
      continue;
    }
    const rule = rules.get(host.data) ?? { ports: new Set<number>() };
    if (port === undefined) rule.ports = "every";
    else if (rule.ports !== "every") rule.ports.add(port);
    rules.set(host.data, rule);
  }
  const hosts: PolicyInput["hosts"] = [];
  for (const [host, rule] of rules) {
    if (rule.ports === "every") {
      notes.push(`${host}: every port in the settings; the policy allows 443 (add ports to allow more)`);
      hosts.push({ host });
    } else hosts.push({ host, ports: [...rule.ports].sort((a, b) => a - b) });
  }
  return { ok: true, value: Policy.parse({ version: 1, hosts }), notes };
}

/**
 * A policy as srt settings: each host on each port it allows (`host:443`), so no entry allows
 * more ports than the policy. Endpoints (srt decides hosts), report mode, http handling and
 * vaults are named where they are widened or lost.
 */
export function exportSandboxRuntimeSettings(policy: Policy): Translated<string> {
  const notes: string[] = [];
  const allowedDomains: string[] = [];
  for (const rule of policy.hosts) {
    for (const port of rule.ports ?? policy.ports) allowedDomains.push(`${rule.host}:${port}`);
    if (rule.endpoints)
      notes.push(`${rule.host}: endpoints (methods and paths) cannot be expressed; the settings allow every request to the host`);
    if (rule.mode === "report") notes.push(`${rule.host}: report mode cannot be expressed; srt enforces`);
  }
  if (policy.mode === "report")
    notes.push("report mode cannot be expressed: srt enforces its lists (what the policy would only mark is refused)");
  if (policy.http !== "upgrade") notes.push(`http: ${policy.http} cannot be expressed; srt decides by host and port`);
  if (policy.vaults.length > 0) notes.push(`vaults ${policy.vaults.join(", ")} cannot be expressed: srt has no vault`);
  return { value: `${JSON.stringify({ network: { allowedDomains, deniedDomains: [] } }, null, 2)}\n`, notes };
}

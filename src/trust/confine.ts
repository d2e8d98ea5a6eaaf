import { DEMO_VAULT_ID } from "../kms";
import { classifyHost, type Policy } from "../policy";

/**
 * What a policy from a link (a lesson, a draft, a share link) is confined to, whatever it says
 * and whatever the reader answers (docs/decisions/0028, "Guarantees"): no vault but the
 * built-in demo vault, and no host rule for a name that is private by convention (the proxy
 * refuses those `private-address` anyway; a rule naming one is dropped so the card and the
 * Policy panel never show it as allowed). Each removal is named with its reason.
 */
export interface ConfinedPolicy {
  policy: Policy;
  refused: { rule: string; reason: string }[];
}

export function confineLinkPolicy(policy: Policy): ConfinedPolicy {
  const refused: ConfinedPolicy["refused"] = [];
  const vaults = policy.vaults.filter((id) => {
    if (id === DEMO_VAULT_ID) return true;
    refused.push({ rule: `vault ${id}`, reason: `a link's policy may name no vault but the demo vault (${DEMO_VAULT_ID})` });
    return false;
  });
  const hosts = policy.hosts.filter((rule) => {
    const why = privateNameReason(rule.host.replace(/^\*\./, ""));
    if (why === null) return true;
    refused.push({ rule: `host ${rule.host}`, reason: why });
    return false;
  });
  return { policy: { ...policy, vaults, hosts }, refused };
}

const PRIVATE_SUFFIXES = ["localhost", "local", "internal", "home.arpa", "localdomain", "home", "lan", "in-addr.arpa", "ip6.arpa"];

/** Why a host name is private by convention (it names the reader's own machine or network), or null. */
function privateNameReason(host: string): string | null {
  const kind = classifyHost(host);
  if (kind.kind !== "name") return `${host} is not a public name`;
  const name = kind.name;
  if (!name.includes(".")) return `${name} is a single-label name: it names a machine on the reader's own network`;
  const suffix = PRIVATE_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  return suffix ? `${name} is under .${suffix}, private by convention: it names the reader's own machine or network` : null;
}

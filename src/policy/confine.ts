import type { VerdictCode } from "../log";
import { privateNameReason, readHost } from "./host";
import type { HostRule, Policy } from "./schema";

/**
 * What a policy from material (a lesson, a draft or share link, a framing parent) may hold:
 * the guarantees no material can lift (docs/decisions/0028-material-from-a-link-is-untrusted.md). `decide` already
 * refuses private destinations whatever a policy says; confining also takes the rules that
 * name them out, with the vault ids, so the reader is shown what the guarantees removed.
 */

/** The vault the playground's row-8 scenario and the vault lesson use: the one a lesson or link may name. */
export const DEMO_VAULT_ID = "demo-notes";

/** One rule taken out of a material's policy, and why. */
export interface ConfinedRule {
  /** The rule as written: `hosts[2] localhost`, `vaults[0] team-secrets`. */
  rule: string;
  code: VerdictCode;
  reason: string;
}

export interface ConfinedPolicy {
  /** The policy minus what the guarantees refuse (the same object when nothing was removed). */
  policy: Policy;
  refused: ConfinedRule[];
}

/** A lesson's or link's policy minus its private hosts and every vault but the demo vault. */
export function confineLinkPolicy(policy: Policy): ConfinedPolicy {
  const refused: ConfinedRule[] = [];
  const hosts: HostRule[] = [];
  policy.hosts.forEach((rule, index) => {
    const why = privateHostPattern(rule.host);
    if (why === null) hosts.push(rule);
    else
      refused.push({
        rule: `hosts[${index}] ${rule.host}`,
        code: "private-address",
        reason: `${why}; no lesson or link may open a private destination`,
      });
  });
  const vaults: string[] = [];
  policy.vaults.forEach((id, index) => {
    if (id === DEMO_VAULT_ID) vaults.push(id);
    else
      refused.push({
        rule: `vaults[${index}] ${id}`,
        code: "vault-not-allowed",
        reason: `a lesson or link may name no vault but the built-in demo vault (${DEMO_VAULT_ID}); ${id} is the reader's own`,
      });
  });
  return { policy: refused.length === 0 ? policy : { ...policy, hosts, vaults }, refused };
}

/** Why a host pattern (`name` or `*.suffix`, as the schema normalised it) names only private hosts, or null. */
function privateHostPattern(pattern: string): string | null {
  if (!pattern.startsWith("*.")) {
    const host = readHost(pattern);
    return host.kind === "private-name" ? host.why : null;
  }
  // `*.home.arpa` names only private hosts; `*.nip.io` does not (its private names are refused one by one).
  return privateNameReason(pattern.slice(2));
}

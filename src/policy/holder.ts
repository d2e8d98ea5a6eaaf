import type { EventLog } from "../log";
import { policyHash } from "./hash";
import type { Policy } from "./schema";

/**
 * The current policy, swappable live (the page's Policy panel edits it). The proxy is given
 * `holder.current` as its policy getter, so the next request sees the new policy. Every
 * change is a `policy.change` event; text that does not validate is a `policy.invalid`
 * event and is never applied.
 */
export interface PolicyHolder {
  current(): Policy;
  /** Replaces the policy; resolves to its hash once logged. */
  replace(policy: Policy, source: string): Promise<string>;
  /** Parses and applies policy text; returns the errors (line and field) when it does not validate. */
  replaceText(text: string, source: string): Promise<{ ok: true; hash: string } | { ok: false; errors: string[] }>;
}

export function createPolicyHolder(initial: Policy, log: EventLog): PolicyHolder {
  let policy = initial;
  let hash: string | null = null;
  const holder: PolicyHolder = {
    current: () => policy,
    async replace(next, source) {
      policy = next;
      const newHash = await policyHash(next);
      log.append({ kind: "policy.change", oldHash: hash, newHash, source });
      hash = newHash;
      return newHash;
    },
    async replaceText(text, source) {
      // The YAML parser loads when text is first parsed: a page that never edits its policy never needs it.
      const { parsePolicy } = await import("./load");
      const parsed = parsePolicy(text);
      if (!parsed.ok) {
        log.append({ kind: "policy.invalid", errors: parsed.errors });
        return parsed;
      }
      return { ok: true, hash: await holder.replace(parsed.policy, source) };
    },
  };
  return holder;
}

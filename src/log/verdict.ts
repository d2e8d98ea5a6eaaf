import { z } from "zod";

/**
 * The verdict vocabulary (the codes every component shares). Codes are stable kebab-case
 * strings that tests, panels, logs and the CLI all use: add codes, never rename one.
 */
export const VERDICT_CODES = [
  "served",
  "host-not-allowed",
  "endpoint-not-allowed",
  "port-not-allowed",
  "ip-literal",
  "redirect-other-host",
  "sni-mismatch",
  "sni-missing",
  "host-header-mismatch",
  "not-https",
  "bad-request",
  "request-timeout",
  "tls-error",
  "tls-not-ready",
  "landlock-denied",
  "private-address",
  "upstream-unreadable",
  "upstream-error",
  "upstream-cert-invalid",
  "no-route",
  "dns-refused",
  "fragment-refused",
  "malformed-frame",
  "hash-missing",
  "hash-mismatch",
  "not-allowlisted",
  "allowlist-not-subset",
  "executable-url",
  "path-outside-base",
  "cycle",
  "depth-exceeded",
  "breadth-exceeded",
  "offline-miss",
  "cache-corrupt",
  "fetch-failed",
  "too-large",
  "bad-status",
  "unparsable",
  "invalid-harness",
  "env-not-allowed",
  "payload-path-refused",
  "truncated-tree",
  "no-candidate",
  "many-candidates",
  "unparsable-index",
  "bad-query",
  "bad-pin",
  "vault-op-not-granted",
  "vault-not-allowed",
  "vault-tampered",
  "vault-stale-base",
  "grant-expired",
  "runtime-fetch-not-allowed",
  "runtime-fetch-limit",
  "too-many-connections",
  "relay-refused",
  "lesson-invalid",
  "lesson-pin-mismatch",
  "consent-declined",
] as const;

export const VerdictCode = z.enum(VERDICT_CODES);
export type VerdictCode = z.infer<typeof VerdictCode>;

/** Who decided: the component whose rule produced the verdict. */
export const DECIDERS = ["proxy", "kernel", "resolver", "cas", "skills", "kms", "design", "wire"] as const;
export const Decider = z.enum(DECIDERS);
export type Decider = z.infer<typeof Decider>;

export const Verdict = z.object({
  allowed: z.boolean(),
  code: VerdictCode,
  reason: z.string(),
  by: Decider,
  /**
   * On an allowed verdict under a policy in report mode: the code the host or endpoint allowlist
   * would have refused with, and why (the request was served anyway).
   */
  wouldRefuse: VerdictCode.optional(),
  wouldRefuseReason: z.string().optional(),
});
export type Verdict = z.infer<typeof Verdict>;

/** An allowed verdict. `served` unless the caller names a more precise code. */
export function allow(reason: string, by: Decider, code: VerdictCode = "served"): Verdict {
  return { allowed: true, code, reason, by };
}

/** A refusal carries its code and its reason in one statement (as smokescreen's ACL sets its decisions; docs/decisions/0007-how-the-code-is-shaped.md). */
export function refuse(code: VerdictCode, reason: string, by: Decider): Verdict {
  return { allowed: false, code, reason, by };
}

const GuardRefusal = z.object({ name: z.literal("FetchRefused"), verdict: Verdict });

/**
 * The verdict a host's guarded fetch rejected with (an error named `FetchRefused` carrying a
 * `verdict`: `private-address`, `port-not-allowed`…), or null for any other failure. Every
 * fetcher reports that verdict as the outcome, never as a network failure.
 */
export function guardRefusal(error: unknown): Verdict | null {
  const parsed = error instanceof Error ? GuardRefusal.safeParse(error) : null;
  return parsed?.success ? parsed.data.verdict : null;
}

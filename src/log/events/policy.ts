import { z } from "zod";

/** A policy change: which policy is now active, by hash. */
export const PolicyChange = z.object({
  kind: z.literal("policy.change"),
  oldHash: z.string().nullable(),
  newHash: z.string(),
  source: z.string(),
});

/** A policy text that did not validate (shown, never applied). */
export const PolicyInvalid = z.object({
  kind: z.literal("policy.invalid"),
  errors: z.array(z.string()),
});

export const policyEvents = [PolicyChange, PolicyInvalid] as const;

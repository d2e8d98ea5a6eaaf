import { z } from "zod";
import { VerdictFields } from "./common";

/**
 * One step of skill discovery or acquisition. Never carries the skill's text: only
 * ids, addresses, digests and sizes. `inspect` is an operator reading the text in the
 * inspection view; `attach` is the text being given to a run.
 */
export const SkillsStep = z.object({
  kind: z.literal("skills.step"),
  step: z.enum(["search", "resolve", "list", "fetch", "verify", "admit", "attach", "inspect"]),
  id: z.string(),
  detail: z.string(),
  handle: z.string().optional(),
  /** The URL this step fetched, when it fetched one. */
  url: z.string().optional(),
  /** Host-computed lowercase hex sha256 of the bytes this step judged, when there were bytes. */
  sha256: z.string().optional(),
  ...VerdictFields,
});

/**
 * A vault or KMS decision (docs/decisions/0006-vault-keys-stay-with-the-kms.md): a grant issued or refused, a vault's keys
 * created, a pull or push served or refused. Never carries key material or object contents:
 * only ids, the grant's access, counts and the manifest's sha256.
 */
export const KmsEvent = z.object({
  kind: z.literal("kms.event"),
  op: z.enum(["grant", "pull", "push", "create"]),
  vaultId: z.string(),
  /** What the guest said the command is (e.g. "sgit push demo-notes"); "" when unknown. */
  command: z.string(),
  /** The grant id this decision issued or used. */
  grant: z.string().optional(),
  /** The access the grant carries (read: the content key; write: also the signing key). */
  access: z.enum(["read", "write"]).optional(),
  /** When the grant expires (ms since the epoch). */
  expiresAt: z.number().optional(),
  /** How many objects were pulled or pushed. */
  objects: z.number().int().nonnegative().optional(),
  /** sha256 of the signed manifest read or written. */
  manifest: z.string().optional(),
  ...VerdictFields,
});

export const skillsEvents = [SkillsStep, KmsEvent] as const;

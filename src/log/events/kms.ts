import { z } from "zod";
import { VerdictFields } from "./common";

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

export const kmsEvents = [KmsEvent] as const;

import { utf8 } from "../../../bytes";
import type { VaultService } from "../../../kms";
import type { Verdict } from "../../../log";
import type { PolicyHolder } from "../../../policy";

/** The demo vault the row-8 scenario pulls from and pushes to. */
export const DEMO_VAULT_ID = "demo-notes";

const DEMO_FILES: readonly { path: string; text: string }[] = [
  {
    path: "README.md",
    text: "# demo-notes\n\nA vault kept by the page: encrypted in its cache, signed by its KMS.\nThe guest sees these files, never a key.\n",
  },
  { path: "todo.txt", text: "- pull the vault\n- edit a note\n" },
  { path: "notes/row-8.txt", text: "Row 8: a push under a read grant cannot be signed (.kms).\n" },
];

/**
 * Makes the demo vault usable: puts its id on the active policy (a logged `policy.change`;
 * the default policy allows no vault, and only this explicit step widens it), and seeds it
 * with a few files when nothing was ever pushed to it. Idempotent.
 */
export async function ensureDemoVault(service: VaultService, policy: PolicyHolder): Promise<Verdict | null> {
  const current = policy.current();
  if (!current.vaults.includes(DEMO_VAULT_ID))
    await policy.replace(
      { ...current, vaults: [...current.vaults, DEMO_VAULT_ID] },
      `vault feature: created the demo vault ${DEMO_VAULT_ID}`,
    );
  if (await service.storage.head(DEMO_VAULT_ID)) return null;
  return service.pushAsHost(
    DEMO_VAULT_ID,
    DEMO_FILES.map((f) => ({ path: f.path, bytes: utf8(f.text) })),
    policy.current(),
    "page: seed the demo vault",
  );
}

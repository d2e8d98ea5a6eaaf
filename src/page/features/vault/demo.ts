import { DEMO_VAULT_ID, seedDemoVault, type VaultService } from "../../../kms";
import type { Verdict } from "../../../log";
import type { PolicyHolder } from "../../../policy";

export { DEMO_VAULT_ID };

/**
 * Makes the demo vault usable: puts its id on the active policy (a logged `policy.change`;
 * the default policy allows no vault, and only this explicit step widens it), and seeds it
 * with a few files when nothing was ever pushed to it (src/kms/demo-vault.ts). Idempotent.
 */
export async function ensureDemoVault(service: VaultService, policy: PolicyHolder): Promise<Verdict | null> {
  const current = policy.current();
  if (!current.vaults.includes(DEMO_VAULT_ID))
    await policy.replace(
      { ...current, vaults: [...current.vaults, DEMO_VAULT_ID] },
      `vault feature: created the demo vault ${DEMO_VAULT_ID}`,
    );
  return seedDemoVault(service, policy.current());
}

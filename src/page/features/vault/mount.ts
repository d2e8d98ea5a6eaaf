import sgitScript from "../../../../guest/sgit?raw";
import { utf8 } from "../../../bytes";
import { messageOf } from "../../../platform";
import { SGIT, VAULT_SCENARIO } from "../../chrome/vault-scenario";
import type { FeatureContext } from "../context";
import { createApprovalCard } from "./card";
import { DEMO_VAULT_ID, ensureDemoVault } from "./demo";

/**
 * The vault feature (row 8 of the verdict table; docs/decisions/0006-vault-keys-stay-with-the-kms.md): the in-page KMS and vault, the guest client delivered
 * into the 9p share as /mnt/tab/bin/sgit (so the guest image does not change), the demo
 * vault, the row-8 button in the scenario bar, and the approval card in the Proxy panel's
 * header: a guest's write grant waits there for the operator's Approve or Deny.
 */
export function mount(ctx: FeatureContext): void {
  const { service, approvals } = ctx.services.vault;
  // The vault's requests and verdicts show in the Proxy panel: its question does too, in view.
  const card = createApprovalCard(approvals, () => ctx.panels.select("proxy"));
  ctx.panels.addHeader("proxy", card.element);
  const delivered = ctx.guest.then((guest) => guest.writeFile("bin/sgit", utf8(sgitScript)));
  delivered.catch((error: unknown) => {
    ctx.log.append({
      kind: "note",
      level: "warning",
      source: "vault",
      message: `could not put sgit into the share: ${messageOf(error)}`,
    });
  });
  const createDemoVault = () => ensureDemoVault(service, ctx.policy);
  // Row 8 joins the scenario bar once the vault exists in this page.
  ctx.scenarios.add({
    ...VAULT_SCENARIO,
    prepare: async () => {
      await delivered;
      await createDemoVault();
    },
  });
  ctx.expose("vault", {
    vaultId: DEMO_VAULT_ID,
    sgit: SGIT,
    /** Puts the demo vault on the policy and seeds it (idempotent). */
    createDemoVault,
    /** Resolves once /mnt/tab/bin/sgit is in the share. */
    ready: () => delivered,
    /** The sha256 of the demo vault's current manifest in the cache (unverified; null when empty). */
    head: () => service.storage.head(DEMO_VAULT_ID),
    /** The newest head the KMS remembers for the demo vault ({generation, manifest} or null). */
    knownHead: () => service.kms.knownHead(DEMO_VAULT_ID),
    /** The write grants waiting for the operator (what the approval card shows). */
    pendingApprovals: () => approvals.pending(),
    runScenario: () => ctx.scenarios.run(VAULT_SCENARIO.id),
  });
}

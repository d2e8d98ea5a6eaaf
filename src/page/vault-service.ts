import { createCas, createIdbStore } from "../cas";
import { createIdbKeyStore, createVaultService, type VaultService } from "../kms";
import type { EventLog } from "../log";
import { type ApprovalQueue, createApprovalQueue } from "./vault-approvals";

/** How long a guest's write grant waits for the operator's Approve or Deny. */
export const APPROVAL_TIMEOUT_MS = 60_000;

interface PageVault {
  service: VaultService;
  approvals: ApprovalQueue;
}

const vaults = new WeakMap<EventLog, PageVault>();

/**
 * The page's one vault service per log: keys (and the newest head of each vault) in their
 * own IndexedDB database (the KMS's), ciphertext and manifests in the page's content-addressed
 * cache (the same IndexedDB store the resolver uses, so vault blobs show in the Cache panel),
 * and the approval queue the KMS asks before a guest's write grant. The feature's `mount` and
 * the proxy's handlers (`vaultHandlers(log)`) get the same instance whichever asks first.
 */
function pageVault(log: EventLog): PageVault {
  let vault = vaults.get(log);
  if (!vault) {
    const approvals = createApprovalQueue();
    const service = createVaultService({
      keys: createIdbKeyStore(),
      cas: createCas({ store: createIdbStore(), log }),
      log,
      approveWrite: approvals.ask,
      approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
    });
    vault = { service, approvals };
    vaults.set(log, vault);
  }
  return vault;
}

export const pageVaultService = (log: EventLog): VaultService => pageVault(log).service;

/** The questions the KMS is waiting on the operator for (the approval card shows them). */
export const pageVaultApprovals = (log: EventLog): ApprovalQueue => pageVault(log).approvals;

import type { Cas } from "../../cas";
import { createIdbKeyStore, createMemoryKeyStore, createVaultService, type VaultService } from "../../kms";
import type { EventLog } from "../../log";
import { type ApprovalQueue, createApprovalQueue } from "./vault-approvals";

/** How long a guest's write grant waits for the operator's Approve or Deny. */
export const APPROVAL_TIMEOUT_MS = 60_000;

export interface PageVault {
  service: VaultService;
  /** The questions the KMS is waiting on the operator for (the approval card shows them). */
  approvals: ApprovalQueue;
}

/**
 * The page's vault, built once by the page's services: keys (and the newest head of each
 * vault) in their own IndexedDB database (the KMS's), ciphertext and manifests in the page's
 * one content-addressed cache (so vault blobs show in the Cache panel), and the approval
 * queue the KMS asks before a guest's write grant. The proxy serves `service.handlers`; the
 * vault feature shows `approvals`.
 */
export function createPageVault(deps: { cas: Cas; log: EventLog; databases?: boolean }): PageVault {
  const approvals = createApprovalQueue();
  const service = createVaultService({
    // Where IndexedDB is refused (storage-probe.ts) the keys live for this visit only.
    keys: deps.databases === false ? createMemoryKeyStore() : createIdbKeyStore(),
    cas: deps.cas,
    log: deps.log,
    approveWrite: approvals.ask,
    approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
  });
  return { service, approvals };
}

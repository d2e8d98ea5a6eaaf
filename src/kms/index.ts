export {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type WriteApprovalRequest,
  type WriteApprover,
} from "./approval";
export { generateVaultKeys, type VaultKeys, type WriteKeys } from "./crypto";
export { DEMO_VAULT_ID, seedDemoVault } from "./demo-vault";
export { createVaultHandlers, GRANT_HEADER, type VaultEndpointOptions, type VaultHandlers } from "./endpoints";
export { describeHead, judgeBase, judgeHead, STALE_BASE_CODE } from "./head";
export { createIdbKeyStore, createMemoryKeyStore, KeyRecord, type KeyStore } from "./key-store";
export {
  createKms,
  type Grant,
  type GrantOutcome,
  type GrantRequestOf,
  grantLabel,
  type KeysFor,
  type KeysOutcome,
  type Kms,
  type KmsOptions,
  type Requester,
} from "./kms";
export {
  EMPTY_HEAD,
  GrantRequest,
  MANIFEST_FORMAT,
  ManifestBody,
  ObjectPath,
  PullRequest,
  PushRequest,
  SignedManifest,
  VaultHead,
  VaultId,
  VaultOp,
} from "./schema";
export { createVaultService, type VaultService, type VaultServiceOptions } from "./service";
export {
  createVaultStorage,
  type VaultObject,
  type VaultResult,
  type VaultSnapshot,
  type VaultStorage,
  vaultHeadUri,
  type WriteOptions,
} from "./vault";

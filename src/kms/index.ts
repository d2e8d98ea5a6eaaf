export { generateVaultKeys, type VaultKeys, type WriteKeys } from "./crypto";
export { createVaultHandlers, GRANT_HEADER, type VaultEndpointOptions } from "./endpoints";
export { createIdbKeyStore, createMemoryKeyStore, KeyRecord, type KeyStore } from "./key-store";
export { createKms, type Grant, type GrantOutcome, grantLabel, type KeysFor, type KeysOutcome, type Kms, type KmsOptions } from "./kms";
export {
  GrantRequest,
  MANIFEST_FORMAT,
  ManifestBody,
  ObjectPath,
  PullRequest,
  PushRequest,
  SignedManifest,
  VaultId,
  VaultOp,
} from "./schema";
export { createVaultService, type VaultService, type VaultServiceOptions } from "./service";
export { createVaultStorage, type VaultObject, type VaultResult, type VaultSnapshot, type VaultStorage, vaultHeadUri } from "./vault";

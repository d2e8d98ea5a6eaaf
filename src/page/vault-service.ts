import { createCas, createIdbStore } from "../cas";
import { createIdbKeyStore, createVaultService, type VaultService } from "../kms";
import type { EventLog } from "../log";

const services = new WeakMap<EventLog, VaultService>();

/**
 * The page's one vault service per log: keys in their own IndexedDB database (the KMS's),
 * ciphertext and manifests in the page's content-addressed cache (the same IndexedDB store
 * the resolver uses, so vault blobs show in the Cache panel). The feature's `mount` and the
 * proxy's handlers (`vaultHandlers(log)`) get the same instance whichever asks first.
 */
export function pageVaultService(log: EventLog): VaultService {
  let service = services.get(log);
  if (!service) {
    service = createVaultService({ keys: createIdbKeyStore(), cas: createCas({ store: createIdbStore(), log }), log });
    services.set(log, service);
  }
  return service;
}

import { toBase64, utf8 } from "../bytes";
import type { Cas } from "../cas";
import type { Clock, EventLog, Verdict } from "../log";
import type { Policy } from "../policy";
import type { OwnHandlers } from "../proxy";
import { createVaultHandlers, GRANT_HEADER } from "./endpoints";
import type { KeyStore } from "./key-store";
import { createKms, type Kms } from "./kms";
import { createVaultStorage, type VaultObject, type VaultStorage } from "./vault";

/** The KMS, the vault storage and the proxy endpoints over them, built once per host. */
export interface VaultService {
  kms: Kms;
  storage: VaultStorage;
  /** For `createProxy({ handlers })`. */
  handlers: OwnHandlers;
  /**
   * Pushes as the host itself (e.g. the page seeding a demo vault): a write grant, then the
   * same push endpoint the guest uses, so both steps are logged like any other.
   */
  pushAsHost(vaultId: string, objects: readonly VaultObject[], policy: Policy, command: string): Promise<Verdict>;
}

export interface VaultServiceOptions {
  keys: KeyStore;
  cas: Cas;
  log: EventLog;
  clock?: Clock;
  grantTtlMs?: number;
}

export function createVaultService(options: VaultServiceOptions): VaultService {
  const { log } = options;
  const kms = createKms({
    keys: options.keys,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.grantTtlMs !== undefined ? { grantTtlMs: options.grantTtlMs } : {}),
  });
  const storage = createVaultStorage({ cas: options.cas });
  const handlers = createVaultHandlers({ kms, storage, log });
  return {
    kms,
    storage,
    handlers,
    async pushAsHost(vaultId, objects, policy, command) {
      const granted = await kms.grant({ vaultId, op: "write", command }, policy);
      if (!granted.grant) return granted.verdict;
      const push = handlers["POST /v0/vault/push"];
      if (!push) throw new Error("the vault handlers have no push endpoint");
      const body = JSON.stringify({
        vault_id: vaultId,
        objects: objects.map((o) => ({ path: o.path, content_base64: toBase64(o.bytes) })),
      });
      const answer = await push({
        method: "POST",
        path: "/v0/vault/push",
        query: "",
        headers: [[GRANT_HEADER, granted.grant.id]],
        body: utf8(body),
        policy,
      });
      return answer.verdict;
    },
  };
}

import { toBase64, utf8 } from "../bytes";
import type { Cas } from "../cas";
import type { EventLog, Verdict } from "../log";
import type { Clock, Timers } from "../platform";
import type { Policy } from "../policy";
import type { WriteApprover } from "./approval";
import { createVaultHandlers, GRANT_HEADER, type VaultHandlers } from "./endpoints";
import type { KeyStore } from "./key-store";
import { createKms, type Kms } from "./kms";
import { EMPTY_HEAD, type VaultHead } from "./schema";
import { createVaultStorage, type VaultObject, type VaultStorage } from "./vault";

/** The KMS, the vault storage and the proxy endpoints over them, built once per host. */
export interface VaultService {
  kms: Kms;
  storage: VaultStorage;
  /** For `createProxy({ handlers })`. */
  handlers: VaultHandlers;
  /**
   * Pushes as the host itself (e.g. the page seeding a demo vault): a write grant (the host's
   * own, so no operator approval), then the same push endpoint the guest uses, so both steps
   * are logged like any other. `base` is the head the objects replace (default: an empty vault).
   */
  pushAsHost(vaultId: string, objects: readonly VaultObject[], policy: Policy, command: string, base?: VaultHead): Promise<Verdict>;
}

export interface VaultServiceOptions {
  keys: KeyStore;
  cas: Cas;
  log: EventLog;
  clock?: Clock;
  grantTtlMs?: number;
  /** Asks the operator about a guest's write grant (the page's card); without one they are refused. */
  approveWrite?: WriteApprover;
  /** How long a write grant waits for the operator (default 60 s). */
  approvalTimeoutMs?: number;
  timers?: Timers;
}

export function createVaultService(options: VaultServiceOptions): VaultService {
  const { log } = options;
  const kms = createKms({
    keys: options.keys,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.grantTtlMs !== undefined ? { grantTtlMs: options.grantTtlMs } : {}),
    ...(options.approveWrite ? { approveWrite: options.approveWrite } : {}),
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
  });
  const storage = createVaultStorage({ cas: options.cas });
  const handlers = createVaultHandlers({ kms, storage, log });
  return {
    kms,
    storage,
    handlers,
    async pushAsHost(vaultId, objects, policy, command, base = EMPTY_HEAD) {
      const granted = await kms.grant({ vaultId, op: "write", command, requester: "host" }, policy);
      if (!granted.grant) return granted.verdict;
      const body = JSON.stringify({
        vault_id: vaultId,
        base,
        objects: objects.map((o) => ({ path: o.path, content_base64: toBase64(o.bytes) })),
      });
      const answer = await handlers["POST /v0/vault/push"].handle({
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

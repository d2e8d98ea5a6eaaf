import type { CasStore } from "../../cas";
import { createCas, createMemoryStore } from "../../cas";
import { createEventLog } from "../../log";
import type { Timers } from "../../platform";
import { Policy } from "../../policy";
import type { WriteApprover } from "../approval";
import { createMemoryKeyStore, type KeyStore } from "../key-store";
import { createVaultService } from "../service";

/** A policy allowing exactly these vault ids. */
export const policyWith = (...vaults: string[]): Policy => Policy.parse({ version: 1, hosts: [], vaults });

/** An operator who approves every write grant (the tests of other rules need one). */
export const approvingOperator: WriteApprover = async () => true;

export interface FixtureOptions {
  grantTtlMs?: number;
  /** Default: `approvingOperator`. */
  approveWrite?: WriteApprover;
  approvalTimeoutMs?: number;
  timers?: Timers;
  /** Stores to reuse (a "reload": a new service over the same key store and cache). */
  stores?: { keys: KeyStore; casStore: CasStore };
}

/** A vault service on memory stores with a clock the test moves. */
export function vaultFixture(options: FixtureOptions = {}) {
  let now = 1_000_000;
  const clock = () => now;
  const log = createEventLog({ clock });
  const casStore = options.stores?.casStore ?? createMemoryStore();
  const cas = createCas({ store: casStore, clock });
  const keys = options.stores?.keys ?? createMemoryKeyStore();
  const service = createVaultService({
    keys,
    cas,
    log,
    clock,
    grantTtlMs: options.grantTtlMs ?? 60_000,
    approveWrite: options.approveWrite ?? approvingOperator,
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
  });
  return {
    ...service,
    log,
    cas,
    casStore,
    keys,
    advance(ms: number) {
      now += ms;
    },
    kmsEvents: () => log.ofKind("kms.event"),
  };
}

export const text = (s: string) => new TextEncoder().encode(s);
export const str = (b: Uint8Array) => new TextDecoder().decode(b);

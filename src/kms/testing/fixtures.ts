import { createCas, createMemoryStore } from "../../cas";
import { createEventLog } from "../../log";
import { Policy } from "../../policy";
import { createMemoryKeyStore } from "../key-store";
import { createVaultService } from "../service";

/** A policy allowing exactly these vault ids. */
export const policyWith = (...vaults: string[]): Policy => Policy.parse({ version: 1, hosts: [], vaults });

/** A vault service on memory stores with a clock the test moves. */
export function vaultFixture(options: { grantTtlMs?: number } = {}) {
  let now = 1_000_000;
  const clock = () => now;
  const log = createEventLog({ clock });
  const casStore = createMemoryStore();
  const cas = createCas({ store: casStore, clock });
  const keys = createMemoryKeyStore();
  const service = createVaultService({ keys, cas, log, clock, grantTtlMs: options.grantTtlMs ?? 60_000 });
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

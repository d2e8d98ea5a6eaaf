import { type Cas, createCas, createIdbStore } from "../cas";
import type { EventLog } from "../log";
import { createPageDigest, type PageDigest } from "./cache-digest";

/** Where the page keeps the content-addressed cache: one IndexedDB database, one object store. */
export const CAS_DB = "linux-in-a-tab";
export const CAS_STORE = "cas";

const byLog = new WeakMap<EventLog, Cas>();
const digests = new WeakMap<EventLog, PageDigest>();

/** The digest the page's CAS uses (its counts show where large inputs were hashed). */
export function pageDigest(log: EventLog): PageDigest {
  let digest = digests.get(log);
  if (!digest) {
    digest = createPageDigest();
    digests.set(log, digest);
  }
  return digest;
}

/**
 * The page's one CAS (ADR 38), shared by the resolver and skills features so a skill held
 * behind a handle and a harness resource live in the same verified store and the Cache panel
 * shows both. One instance per log: the features of one playground share it.
 */
export function pageCas(log: EventLog): Cas {
  let cas = byLog.get(log);
  if (!cas) {
    cas = createCas({ store: createIdbStore(CAS_DB, CAS_STORE), log, digest: pageDigest(log) });
    byLog.set(log, cas);
  }
  return cas;
}

import { createStore, get, set, values } from "idb-keyval";
import type { Cas } from "../../cas";
import { createMemoryHandleStore, DEFAULT_REGISTRY, type SkillBlobStore, SkillHandleRecord, type SkillHandleStore } from "../../skills";
import { createSkillChoices, type SkillChoices } from "./skill-choices";

/**
 * Admitted skill bytes live in the page's CAS (IndexedDB, keyed by sha256, re-hashed on every
 * read), so a tampered SKILL.md is refused as cache-corrupt and never opened.
 */
export function createCasBlobStore(cas: Cas): SkillBlobStore {
  return {
    put: (bytes) => cas.put(bytes),
    async get(sha256) {
      const read = await cas.get(sha256);
      return read.status === "hit" ? read.bytes : null;
    },
  };
}

export const HANDLE_DB = "linux-in-a-tab-skills";
export const HANDLE_STORE = "handles";

/**
 * The handle table on its own IndexedDB database (idb-keyval opens one object store per
 * database). Records read back are untrusted (anything on the origin can write IndexedDB):
 * each is parsed with the exported schema and must sit under its own handle.
 */
export function createIdbHandleStore(dbName = HANDLE_DB, storeName = HANDLE_STORE): SkillHandleStore {
  const store = createStore(dbName, storeName);
  return {
    async put(record) {
      const parsed = SkillHandleRecord.parse(record);
      await set(parsed.handle, parsed, store);
    },
    async get(handle) {
      const parsed = SkillHandleRecord.safeParse(await get(handle, store));
      return parsed.success && parsed.data.handle === handle ? parsed.data : null;
    },
    async list() {
      const records: SkillHandleRecord[] = [];
      for (const raw of await values(store)) {
        const parsed = SkillHandleRecord.safeParse(raw);
        if (parsed.success) records.push(parsed.data);
      }
      return records.sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : 0));
    },
  };
}

export interface PageSkills {
  store: SkillBlobStore;
  handles: SkillHandleStore;
  choices: SkillChoices;
  /** The registry the Skills panel searches; the model's `search_skills` uses the same one. */
  registry: { current(): string; set(origin: string): void };
}

/**
 * The page's skills, built once by the page's services: the Skills panel acquires into them
 * and marks what the next run attaches; the runner reads the same handles and choices.
 */
export function createPageSkills(cas: Cas, storage: Storage | null, databases = true): PageSkills {
  let registry = DEFAULT_REGISTRY;
  return {
    store: createCasBlobStore(cas),
    // Where IndexedDB is refused (storage-probe.ts) the handles live for this visit only.
    handles: databases ? createIdbHandleStore() : createMemoryHandleStore(),
    choices: createSkillChoices(storage),
    registry: {
      current: () => registry,
      set: (origin) => {
        registry = origin.trim() || DEFAULT_REGISTRY;
      },
    },
  };
}

import { sha256Hex, utf8 } from "../bytes";
import { createEventLog } from "../log";
import { createCas } from "./cas";
import type { CasStore } from "./store";

/** One named check of the CAS contract; throws on failure. Runs in Vitest and in the browser. */
export interface CasCheck {
  name: string;
  run(): Promise<void>;
}

export interface CasContractOptions {
  /** A fresh, empty store for each check. */
  create(): Promise<CasStore> | CasStore;
}

const ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`CAS contract: ${message}`);
}
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The one contract every store must pass (one contract suite, many implementations:
 * docs/decisions/0007-how-the-code-is-shaped.md): content-addressed, re-verified on every read.
 */
export function casContractChecks({ create }: CasContractOptions): CasCheck[] {
  async function setup() {
    const store = await create();
    const log = createEventLog();
    let now = 1_000;
    const cas = createCas({ store, log, clock: () => now });
    return { store, log, cas, advance: (ms: number) => (now += ms) };
  }
  return [
    {
      name: "put returns the sha256 of the bytes and get serves the same bytes back (content addressing)",
      async run() {
        const { cas } = await setup();
        const key = await cas.put(utf8("abc"));
        check(key === ABC_SHA256, `key ${key} is not sha256("abc")`);
        const read = await cas.get(key);
        check(read.status === "hit" && same(read.bytes, utf8("abc")), "get did not return the stored bytes");
      },
    },
    {
      name: "an unknown key is a miss, never an error",
      async run() {
        const { cas } = await setup();
        const read = await cas.get("0".repeat(64));
        check(read.status === "miss", `expected miss, got ${read.status}`);
      },
    },
    {
      name: "tampered bytes are never served: the read is cache-corrupt, the entry evicted, the event logged (re-verified on every read)",
      async run() {
        const { store, cas, log } = await setup();
        const key = await cas.put(utf8("abc"));
        await store.putBlob(key, utf8("abd"));
        const read = await cas.get(key);
        check(read.status === "corrupt" && read.verdict.code === "cache-corrupt", "tampered bytes were not refused as cache-corrupt");
        check((await store.getBlob(key)) === null, "the corrupt blob was not evicted");
        check((await cas.get(key)).status === "miss", "a second read after eviction is not a miss");
        check(
          log.ofKind("cache.event").some((e) => e.op === "corrupt" && e.sha256 === key),
          "no cache.event corrupt was logged",
        );
      },
    },
    {
      name: "the URL index maps a URL to the sha256 it served and the fetch time",
      async run() {
        const { cas } = await setup();
        const key = await cas.put(utf8("policy: {}\n"), { url: "https://example.org/p.yaml" });
        const record = await cas.lookupUrl("https://example.org/p.yaml");
        check(record !== null && record.sha256 === key && record.fetchedAt === 1_000, "URL index record is wrong");
        check((await cas.lookupUrl("https://example.org/other.yaml")) === null, "an unknown URL is not null");
      },
    },
    {
      name: "the same bytes stored twice are one entry carrying both URLs",
      async run() {
        const { cas } = await setup();
        await cas.put(utf8("same"), { url: "https://a.example/x" });
        await cas.put(utf8("same"), { url: "https://b.example/y" });
        const entries = await cas.list();
        check(entries.length === 1, `expected 1 entry, got ${entries.length}`);
        check(entries[0]?.urls.join(",") === "https://a.example/x,https://b.example/y", `urls: ${entries[0]?.urls.join(",")}`);
        check(entries[0]?.size === 4, "size is not the byte length");
      },
    },
    {
      name: "list reports size and last use, and a hit advances last use",
      async run() {
        const { cas, advance } = await setup();
        const key = await cas.put(utf8("hello"));
        advance(500);
        await cas.get(key);
        const [entry] = await cas.list();
        check(entry?.sha256 === key && entry.size === 5, "entry sha256/size wrong");
        check(entry.storedAt === 1_000 && entry.lastUsed === 1_500, `storedAt ${entry.storedAt} lastUsed ${entry.lastUsed}`);
      },
    },
    {
      name: "a blob written without its index entry (a crash between the two writes) is still verified and served",
      async run() {
        const { store, cas } = await setup();
        const bytes = utf8("orphan");
        const key = await sha256Hex(bytes);
        await store.putBlob(key, bytes);
        const read = await cas.get(key);
        check(read.status === "hit" && same(read.bytes, bytes), "orphan blob was not served");
        check(
          (await cas.list()).some((e) => e.sha256 === key),
          "orphan blob missing from list",
        );
      },
    },
    {
      name: "verify-all evicts the corrupt entries and keeps the good ones",
      async run() {
        const { store, cas } = await setup();
        const good = await cas.put(utf8("good"));
        const bad = await cas.put(utf8("bad"));
        await store.putBlob(bad, utf8("evil"));
        const report = await cas.verifyAll();
        check(report.checked === 2 && report.corrupt.join() === bad, `report ${JSON.stringify(report)}`);
        check((await cas.get(good)).status === "hit", "a good entry was lost");
        check(
          (await cas.list()).every((e) => e.sha256 !== bad),
          "the corrupt entry is still listed",
        );
      },
    },
    {
      name: "remove and clear empty the cache",
      async run() {
        const { cas } = await setup();
        const a = await cas.put(utf8("a"), { url: "https://x.example/a" });
        await cas.put(utf8("b"));
        await cas.remove(a);
        check((await cas.get(a)).status === "miss", "removed entry still served");
        await cas.clear();
        check((await cas.list()).length === 0, "clear left entries");
        check((await cas.lookupUrl("https://x.example/a")) === null, "clear left the URL index");
      },
    },
    {
      name: "a full quota is reported (CasQuotaError and a cache.event quota), not swallowed",
      async run() {
        const inner = await create();
        const full: CasStore = {
          ...inner,
          label: inner.label,
          locate: inner.locate,
          async putBlob() {
            throw Object.assign(new Error("quota exceeded"), { name: "QuotaExceededError" });
          },
        };
        const log = createEventLog();
        const cas = createCas({ store: full, log });
        let thrown: unknown = null;
        try {
          await cas.put(utf8("too much"));
        } catch (error) {
          thrown = error;
        }
        check(thrown instanceof Error && thrown.name === "CasQuotaError", "put did not throw CasQuotaError");
        check(
          log.ofKind("cache.event").some((e) => e.op === "quota"),
          "no quota event",
        );
      },
    },
  ];
}

import type { BrowserContext } from "@playwright/test";
import { expect, type Page, test } from "@playwright/test";
import { openPlayground } from "./support/guest";
import { type ResolverRunSummary, resolverRunAfter } from "./support/resolver-runs";

// Page side: the resolver and the content-addressed cache in the real browser, on the
// real IndexedDB (docs/decisions/0001-harness-resources-by-url-and-path.md). The sample's remote library exists only as
// recordings (public/samples/fixtures); anything else reaching for the network is aborted.
// These checks do not need the guest: the page boots it anyway, and no test waits for it.
test.describe.configure({ mode: "serial", timeout: 300_000 });

const LIBRARY = "https://raw.githubusercontent.com/example-org/agent-library/ff9cd8c635fa43c727b279f31dc9369f1aaccf0c";
const REVIEW = `${LIBRARY}/harness/review.yaml#sha256=7c24e5c5721cb2b07336895c66d8ee0e10e32dae9fed6dad8504b0b45a5fccb5`;
const POLICY_SHA = "3d6f9a06246b1c5f02544db22987a3934c66736bd2ac1938e0175b80b148f24c";

let context: BrowserContext;
let page: Page;

type RunSummary = ResolverRunSummary;

async function openPage(path = "./"): Promise<void> {
  await page.goto(path);
  await page.waitForFunction(() => window.__tab?.features.resolver !== undefined);
}

const runAfter = (from: number): Promise<RunSummary> => resolverRunAfter(page, from);

const nextSeq = () => page.evaluate(() => window.__tab?.log.nextSeq ?? 0);

const showPanel = (id: string) => page.locator(`#tab-${id}`).click();

async function clickAndRun(name: string): Promise<RunSummary> {
  const from = await nextSeq();
  await showPanel("resolver");
  await page.locator("#panel-resolver").getByRole("button", { name, exact: true }).click();
  return runAfter(from);
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  // Only the page's own origin answers; every other host is refused loudly.
  ({ context, page } = await openPlayground(browser, null, { warm: false, acceptDownloads: true, refuseUnplanned: true }));
  await openPage();
});
test.afterAll(async () => {
  await context?.close();
});

test("the CAS contract (src/cas/contract.ts) passes against the real IndexedDB store in the browser", async () => {
  const results = await page.evaluate(async () => {
    const resolver = window.__tab?.features.resolver;
    if (!resolver) throw new Error("no resolver feature");
    return resolver.runCasContract();
  });
  expect(results.length).toBeGreaterThanOrEqual(10);
  expect(results.filter((r) => !r.ok)).toEqual([]);
});

test("a large entry is hashed off the main thread (a Comlink worker) and cached under the right sha256", async () => {
  const result = await page.evaluate(async () => {
    const resolver = window.__tab?.features.resolver;
    if (!resolver) throw new Error("no resolver feature");
    const bytes = new Uint8Array(2 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    const expected = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join(
      "",
    );
    const before = resolver.digest.hashed.worker;
    const sha = await resolver.cas.put(bytes);
    const read = await resolver.cas.get(sha);
    return { sha, expected, viaWorker: resolver.digest.hashed.worker - before, status: read.status };
  });
  expect(result.sha).toBe(result.expected);
  expect(result.status).toBe("hit");
  // put hashes once, get re-hashes once: both in the worker.
  expect(result.viaWorker).toBeGreaterThanOrEqual(2);
});

test("nothing is resolved on first load without ?harness (first load stays light)", async () => {
  expect(await page.evaluate(() => window.__tab?.log.ofKind("resolver.run").length)).toBe(0);
  await expect(page.getByTestId("resolve-status")).toHaveText("nothing resolved yet");
});

test("the bundled sample resolves from the recordings and every verdict shows in the Resolver panel's tree", async () => {
  const run = await clickAndRun("Resolve the sample");
  expect(run.phase).toBe("done");
  expect(run.steps.map((s) => s.field)).toEqual(
    expect.arrayContaining(["harness", "agent", "policy", "skills[0]", "skills[1]", "skills[1].dependencies[0]", "pre_script"]),
  );
  expect(run.steps.every((s) => s.allowed)).toBe(true);
  // First resolve in a fresh browser: the remote resources came from the (recorded) network.
  expect(run.steps.find((s) => s.field === "policy")).toMatchObject({ cache: "miss", sha256: POLICY_SHA });
  const tree = page.getByTestId("resolve-tree");
  for (const step of run.steps) {
    const node = tree.locator(`li[data-node-id="${step.id}"]`);
    await expect(node).toHaveAttribute("data-code", step.code);
    await expect(node).toHaveAttribute("data-field", step.field);
    await expect(node).toHaveAttribute("data-cache", step.cache);
  }
  // The dependency sits under the skill directory that declared it.
  const skill = run.steps.find((s) => s.field === "skills[1]");
  const dep = run.steps.find((s) => s.field === "skills[1].dependencies[0]");
  await expect(tree.locator(`li[data-node-id="${skill?.id}"] li[data-node-id="${dep?.id}"]`)).toHaveCount(1);
  await expect(page.getByTestId("resolve-progress")).toHaveJSProperty("value", 1);
  // The event table below the tree is unchanged: one row per step, too.
  await expect(page.locator("#panel-resolver tbody tr[data-kind='resolver.step']")).toHaveCount(run.steps.length);
});

test("the Cache panel lists the entries with their URLs", async () => {
  await showPanel("cache");
  const entries = page.getByTestId("cache-entries");
  await expect(entries.locator(`tr[data-sha256="${POLICY_SHA}"]`)).toContainText("rust-sandbox.yaml");
});

test("the lock file downloads as lock.yaml with the remote pins", async () => {
  await showPanel("resolver");
  const downloading = page.waitForEvent("download");
  await page.locator("#panel-resolver").getByRole("button", { name: "Download lock file" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("lock.yaml");
  const text = await page.evaluate(() => {
    return window.__tab?.features.resolver?.lockFileText() ?? null;
  });
  expect(text).toContain(POLICY_SHA);
  expect(text).toContain("source: harness/demo.yaml");
});

test("a reload keeps the cache: the second resolve serves every remote resource as a cache hit", async () => {
  await openPage("./");
  const run = await clickAndRun("Resolve the sample");
  expect(run.phase).toBe("done");
  const remote = run.steps.filter((s) => s.url !== null);
  expect(remote.length).toBeGreaterThanOrEqual(3);
  expect(remote.map((s) => `${s.field}:${s.cache}`)).toEqual(remote.map((s) => `${s.field}:hit`));
});

test("an IndexedDB entry edited behind the cache's back is cache-corrupt: evicted, logged, not served", async () => {
  // Flip one byte of the cached policy directly in IndexedDB, as another tab or an extension could.
  const db = await page.evaluate(() => {
    return window.__tab?.features.resolver?.db ?? { name: "", store: "" };
  });
  expect(db.name).not.toBe("");
  await page.evaluate(
    ({ db, key }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open(db.name);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction(db.store, "readwrite");
          const store = tx.objectStore(db.store);
          const read = store.get(key);
          read.onsuccess = () => {
            const bytes = new Uint8Array(read.result as Uint8Array);
            bytes[0] = (bytes[0] ?? 0) ^ 0x20;
            store.put(bytes, key);
          };
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    { db, key: `blob:${POLICY_SHA}` },
  );
  const from = await nextSeq();
  const run = await clickAndRun("Resolve the sample");
  const cacheEvents = await page.evaluate(
    (from) => (window.__tab?.log.ofKind("cache.event") ?? []).filter((e) => e.seq >= from).map((e) => ({ op: e.op, sha256: e.sha256 })),
    from,
  );
  // Detected on read and evicted before anything was served; the only hit comes after the
  // verified bytes were stored again (the skill's dependency on the same policy).
  const ops = cacheEvents.filter((e) => e.sha256 === POLICY_SHA).map((e) => e.op);
  expect(ops.slice(0, 3)).toEqual(["corrupt", "evict", "put"]);
  // Not served from the cache: fetched again (from the recordings) and verified against its pin.
  expect(run.phase).toBe("done");
  expect(run.steps.find((s) => s.field === "policy")).toMatchObject({ cache: "miss", code: "served", sha256: POLICY_SHA });
  await expect(page.locator("#panel-cache tbody tr[data-kind='cache.event']").filter({ hasText: "corrupt" }).first()).toBeAttached();
});

test("an offline resolve is served from the cache alone, fetching nothing", async () => {
  const fetched: string[] = [];
  const onRequest = (request: import("@playwright/test").Request) => {
    if (request.url().includes("/fixtures/") || !request.url().startsWith("http://127.0.0.1")) fetched.push(request.url());
  };
  page.on("request", onRequest);
  const run = await clickAndRun("Resolve offline");
  page.off("request", onRequest);
  expect(run.phase).toBe("done");
  const remote = run.steps.filter((s) => s.url !== null);
  expect(remote.length).toBeGreaterThanOrEqual(3);
  expect(remote.every((s) => s.cache === "hit" && s.allowed)).toBe(true);
  expect(fetched).toEqual([]);
});

test("Clear cache empties the cache, and Warm cache fills it again without producing a harness", async () => {
  await showPanel("cache");
  await page.getByTestId("cache-clear").click();
  await expect(page.getByTestId("cache-entries").locator("tr")).toHaveCount(0);
  const run = await clickAndRun("Warm cache");
  expect(run.phase).toBe("done");
  await showPanel("cache");
  await expect(page.getByTestId("cache-entries").locator(`tr[data-sha256="${POLICY_SHA}"]`)).toHaveCount(1);
});

test("a shared link ?harness=<encoded pinned URL>&fixtures=samples resolves on open", async () => {
  const from = 0; // a fresh page: its log starts at 0
  await openPage(`./?harness=${encodeURIComponent(REVIEW)}&fixtures=samples`);
  const run = await runAfter(from);
  expect(run.harness).toBe(REVIEW);
  expect(run.phase).toBe("done");
  const root = run.steps.find((s) => s.field === "harness");
  expect(root).toMatchObject({ code: "served", url: REVIEW.split("#")[0] });
  await expect(page.getByTestId("resolve-tree").locator(`li[data-node-id="${root?.id}"]`)).toHaveAttribute("data-code", "served");
  await expect(page.locator("#harness-url")).toHaveValue(REVIEW);
});

test("the top bar's harness field resolves what is typed into it", async () => {
  const from = await nextSeq();
  await page.locator("#harness-url").fill(REVIEW);
  await page.locator("#harness-url").press("Enter");
  const run = await runAfter(from);
  expect(run.harness).toBe(REVIEW);
  expect(run.phase).toBe("done");
  // What the shared link fetched by pin is served from the cache now; unpinned relative
  // references of a URL harness are fetched again on every resolve.
  const pinned = run.steps.filter((s) => s.url !== null && s.pin !== null);
  expect(pinned.map((s) => s.field)).toContain("harness");
  expect(pinned.map((s) => `${s.field}:${s.cache}`)).toEqual(pinned.map((s) => `${s.field}:hit`));
});

import { expect, type Page, test } from "@playwright/test";
import { closePlayground, openPlayground, type Playground, runInGuest } from "./support/guest";
import { scenarioEnded } from "./support/scenarios";

// Row 8 of the verdict table, live from the real guest: a push under a grant that
// asked op=read cannot be signed, because the KMS gave out only the read key
// (docs/decisions/0006-vault-keys-stay-with-the-kms.md). The guest runs sh /mnt/tab/bin/sgit, which the page put in the share.
// And the vault's known debt, paid: a write grant waits for the operator's Approve or Deny on
// the page's approval card; an older manifest put back in the cache is refused as a rollback.
test.describe.configure({ mode: "serial" });

let pg: Playground;
const SGIT = "sh /mnt/tab/bin/sgit";

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  pg = await openPlayground(browser);
  // Nothing in this file may reach the network: the vault lives in the page.
  await pg.context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort("blockedbyclient"));
  await pg.page.evaluate(async () => {
    await window.__tab?.features.vault?.ready();
  });
});
test.afterAll(async () => {
  await closePlayground(pg);
});

const headOf = (page: Page) => page.evaluate(() => window.__tab?.features.vault?.head() ?? Promise.resolve(null));

/** The approval card for a write grant on the demo vault, once the guest has asked. */
async function answerApproval(page: Page, decision: "approve" | "deny", command: string): Promise<void> {
  const card = page.locator('[data-vault-approval][data-vault-id="demo-notes"]');
  await expect(card).toBeVisible({ timeout: 120_000 });
  await expect(card).toContainText("op=write");
  await expect(card).toContainText(command);
  await card.locator(`button[data-decision="${decision}"]`).click();
  await expect(card).toHaveCount(0);
}

/**
 * Points the demo vault's head in the page's cache (IndexedDB linux-in-a-tab/cas, as
 * src/cas/idb-store.ts lays it out) at another manifest: what anyone who can write that
 * storage can do, with no key at all.
 */
async function pointHeadAt(page: Page, manifest: string): Promise<void> {
  await page.evaluate(async (sha256) => {
    const url = "vault:demo-notes/manifest";
    const open = indexedDB.open("linux-in-a-tab");
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction("cas", "readwrite");
      tx.objectStore("cas").put({ url, sha256, fetchedAt: Date.now() }, `urls:${url}`);
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  }, manifest);
}

interface VaultEvent {
  op: string;
  vaultId: string;
  access?: string;
  code: string;
  by: string;
  allowed: boolean;
}

const nextSeq = (page: Page) => page.evaluate(() => window.__tab?.log.nextSeq ?? 0);

async function kmsEventsSince(page: Page, seq: number): Promise<VaultEvent[]> {
  return page.evaluate(
    (from) =>
      (window.__tab?.log.ofKind("kms.event") ?? [])
        .filter((e) => e.seq >= from)
        .map((e) => ({
          op: e.op,
          vaultId: e.vaultId,
          ...(e.access ? { access: e.access } : {}),
          code: e.code,
          by: e.by,
          allowed: e.allowed,
        })),
    seq,
  );
}

async function reasonsSince(page: Page, seq: number, op: string): Promise<string[]> {
  return page.evaluate(
    ({ from, op }) => (window.__tab?.log.ofKind("kms.event") ?? []).filter((e) => e.seq >= from && e.op === op).map((e) => e.reason),
    { from: seq, op },
  );
}

test("row 8: the scenario button pulls the demo vault, then a push under a read grant is refused (vault-op-not-granted, by kms)", async () => {
  const page = pg.page;
  const from = await nextSeq(page);
  await page.locator('[data-scenario="vault-push-read"]').click();
  await scenarioEnded(page, "vault-push-read", from);
  const events = await kmsEventsSince(page, from);
  expect(events).toContainEqual({ op: "pull", vaultId: "demo-notes", access: "read", code: "served", by: "kms", allowed: true });
  expect(events).toContainEqual({
    op: "push",
    vaultId: "demo-notes",
    access: "read",
    code: "vault-op-not-granted",
    by: "kms",
    allowed: false,
  });
  const decisions = await page.evaluate(
    (f) =>
      window.__tab?.log
        .ofKind("proxy.decision")
        .filter((e) => e.seq >= f)
        .map((e) => ({ target: e.target, code: e.code, by: e.by, status: e.status })),
    from,
  );
  expect(decisions).toContainEqual({ target: "vault:demo-notes/push", code: "vault-op-not-granted", by: "kms", status: 403 });
  const screen = await page.evaluate(() => window.__tab?.guest?.console.text ?? "");
  expect(screen).toContain("- pull the vault"); // the pulled todo.txt, decrypted in the page
  expect(screen).toContain("the push cannot be signed");
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "vault-op-not-granted" }).first()).toBeVisible();
  // The demo vault was put on the policy with a logged policy change.
  expect(await page.evaluate(() => window.__tab?.policy.current().vaults)).toContain("demo-notes");
});

test("a push under a write grant the operator approved on the card lands, and a second pull sees it", async () => {
  const page = pg.page;
  const from = await nextSeq(page);
  const running = runInGuest(page, `G=$(${SGIT} grant demo-notes write) && SGIT_GRANT=$G ${SGIT} push demo-notes /tmp/notes`, 180_000);
  await answerApproval(page, "approve", "sgit grant demo-notes write");
  const pushed = await running;
  expect(pushed.output).toContain("pushed 3 objects to demo-notes (generation 2)");
  expect(pushed.status).toBe(0);
  const pulled = await runInGuest(page, `${SGIT} pull demo-notes /tmp/again && cat /tmp/again/todo.txt`, 90_000);
  expect(pulled.status).toBe(0);
  expect(pulled.output).toContain("(generation 2)");
  expect(pulled.output).toContain("- pushed from the guest");
  const events = await kmsEventsSince(page, from);
  expect(events).toContainEqual({ op: "grant", vaultId: "demo-notes", access: "write", code: "served", by: "kms", allowed: true });
  expect(events).toContainEqual({ op: "push", vaultId: "demo-notes", access: "write", code: "served", by: "kms", allowed: true });
  expect(events.filter((e) => e.op === "pull" && e.allowed)).toHaveLength(1);
  expect(await reasonsSince(page, from, "grant")).toContainEqual(expect.stringContaining("the operator approved"));
});

test("a write grant the operator denies is refused (vault-op-not-granted, by kms): sgit push reports it and the vault is unchanged", async () => {
  const page = pg.page;
  const before = await headOf(page);
  expect(before).toMatch(/^[0-9a-f]{64}$/);
  const from = await nextSeq(page);
  // /tmp/notes was pushed as the head just now: only the operator's Deny stops this push.
  await runInGuest(page, "echo '- denied edit' >> /tmp/notes/todo.txt", 60_000);
  const running = runInGuest(page, `${SGIT} push demo-notes /tmp/notes`, 180_000);
  await answerApproval(page, "deny", "sgit push demo-notes");
  const result = await running;
  expect(result.status).not.toBe(0);
  expect(result.output).toContain("refused (403 vault-op-not-granted)");
  expect(result.output).toContain("the operator denied it");
  expect(await headOf(page)).toBe(before);
  const events = await kmsEventsSince(page, from);
  expect(events).toContainEqual({
    op: "grant",
    vaultId: "demo-notes",
    access: "write",
    code: "vault-op-not-granted",
    by: "kms",
    allowed: false,
  });
  expect(events.filter((e) => e.op === "push")).toEqual([]);
  const pulled = await runInGuest(page, `${SGIT} pull demo-notes /tmp/after-deny && cat /tmp/after-deny/todo.txt`, 90_000);
  expect(pulled.output).toContain("(generation 2)");
  expect(pulled.output).not.toContain("- denied edit");
});

test("an older manifest put back in the page's cache is refused on pull as a rollback (vault-tampered, by kms), and nothing is lost", async () => {
  const page = pg.page;
  const current = await headOf(page);
  // Yesterday's manifest: the one row 8 pulled (generation 1), validly signed by the vault's key.
  const manifests = await page.evaluate(() => [
    ...new Set((window.__tab?.log.ofKind("kms.event") ?? []).filter((e) => e.allowed && e.manifest).map((e) => e.manifest ?? "")),
  ]);
  const previous = manifests[manifests.indexOf(current ?? "") - 1];
  expect(previous).toMatch(/^[0-9a-f]{64}$/);
  await pointHeadAt(page, previous ?? "");
  const from = await nextSeq(page);
  const refused = await runInGuest(page, `${SGIT} pull demo-notes /tmp/rolled`, 90_000);
  expect(refused.status).not.toBe(0);
  expect(refused.output).toContain("refused (403 vault-tampered)");
  expect(refused.output).toContain("rollback refused");
  expect(refused.output).toContain("generation 1");
  expect(refused.output).toContain("generation 2");
  expect(await kmsEventsSince(page, from)).toContainEqual({
    op: "pull",
    vaultId: "demo-notes",
    access: "read",
    code: "vault-tampered",
    by: "kms",
    allowed: false,
  });
  // Nothing lost: the KMS still knows generation 2, and with the head put right it pulls again.
  expect(await page.evaluate(() => window.__tab?.features.vault?.knownHead())).toEqual({
    generation: 2,
    manifest: current,
  });
  await pointHeadAt(page, current ?? "");
  const restored = await runInGuest(page, `${SGIT} pull demo-notes /tmp/restored && cat /tmp/restored/todo.txt`, 90_000);
  expect(restored.status).toBe(0);
  expect(restored.output).toContain("(generation 2)");
  expect(restored.output).toContain("- pushed from the guest");
});

test("a vault id not on the policy is refused (vault-not-allowed, by kms)", async () => {
  const page = pg.page;
  const from = await nextSeq(page);
  const result = await runInGuest(page, `${SGIT} pull payroll /tmp/payroll`, 90_000);
  expect(result.status).not.toBe(0);
  expect(result.output).toContain("vault-not-allowed");
  expect(await kmsEventsSince(page, from)).toContainEqual({
    op: "grant",
    vaultId: "payroll",
    access: "read",
    code: "vault-not-allowed",
    by: "kms",
    allowed: false,
  });
});

test("no key ever reaches the guest: the grant token is not in GET /v0/log", async () => {
  const page = pg.page;
  const result = await runInGuest(
    page,
    `G=$(${SGIT} grant demo-notes read) && curl -sS --noproxy '*' http://10.0.2.2:3128/v0/log | grep -c "$G"`,
    90_000,
  );
  expect(result.output.trim()).toBe("0");
});

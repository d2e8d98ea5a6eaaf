import { expect, type Page, test } from "@playwright/test";
import { openPlayground, type Playground, runInGuest } from "./support/guest";

// Seed 004_38ec4e288fc63d5a.txt, row 8, live from the real guest (issue 10): "push to a vault
// for which the command asked op=read → the KMS returned only the read key; the push cannot
// be signed" (by .kms). The guest runs sh /mnt/tab/bin/sgit, which the page put in the share.
test.describe.configure({ mode: "serial" });

let pg: Playground;
const SGIT = "sh /mnt/tab/bin/sgit";

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  pg = await openPlayground(browser);
  // Nothing in this file may reach the network: the vault lives in the page.
  await pg.context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort("blockedbyclient"));
  await pg.page.evaluate(async () => {
    const vault = window.__tab?.features.vault as { ready(): Promise<void> } | undefined;
    await vault?.ready();
  });
});
test.afterAll(async () => {
  await pg?.context.close();
});

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

test("row 8: the scenario button pulls the demo vault, then a push under a read grant is refused (vault-op-not-granted, by kms)", async () => {
  const page = pg.page;
  const from = await nextSeq(page);
  await page.locator('[data-scenario="vault-push-read"]').click();
  await page.waitForFunction(
    (f) => window.__tab?.log.events().some((e) => e.seq >= f && e.kind === "scenario" && e.id === "vault-push-read" && e.phase !== "start"),
    from,
    { timeout: 120_000 },
  );
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

test("a push under a write grant lands, and a second pull sees it", async () => {
  const page = pg.page;
  const from = await nextSeq(page);
  const pushed = await runInGuest(page, `G=$(${SGIT} grant demo-notes write) && SGIT_GRANT=$G ${SGIT} push demo-notes /tmp/notes`, 90_000);
  expect(pushed.output).toContain("pushed 3 objects to demo-notes (generation 2)");
  expect(pushed.status).toBe(0);
  const pulled = await runInGuest(page, `${SGIT} pull demo-notes /tmp/again && cat /tmp/again/todo.txt`, 90_000);
  expect(pulled.status).toBe(0);
  expect(pulled.output).toContain("(generation 2)");
  expect(pulled.output).toContain("- pushed from the guest");
  const events = await kmsEventsSince(page, from);
  expect(events).toContainEqual({ op: "push", vaultId: "demo-notes", access: "write", code: "served", by: "kms", allowed: true });
  expect(events.filter((e) => e.op === "pull" && e.allowed)).toHaveLength(1);
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

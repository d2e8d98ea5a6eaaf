import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground } from "./support/guest";
import { refuseUnplanned, routeZen, runScenario, upstream } from "./support/upstreams";

// Policy authoring in the page, on the real guest: report mode serves what the allowlist
// would refuse and marks it; "Would this be allowed?" answers without a request leaving; a
// policy drafted from the session's scripted rows is applied rule by rule; the session's log,
// downloaded, is replayed in the Replay panel under a narrowed policy. One guest for the file.
test.describe.configure({ mode: "serial" });

let pg: Playground;
const PASTE = "https://pastebin.com/raw/abc123";
let defaultPolicy = "";

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser);
  await refuseUnplanned(pg.context);
  await routeZen(pg.context, "Design for failure.");
  await pg.context.route(PASTE, upstream(200, { "content-type": "text/plain" }, "pasted text"));
  defaultPolicy = await pg.page.evaluate(() => JSON.stringify(window.__tab?.policy.current()));
});
test.afterAll(async () => {
  await closePlayground(pg);
});

async function applyPolicy(page: Page, text: string): Promise<void> {
  const applied = await page.evaluate((t) => window.__tab?.policy.replaceText(t, "policy-authoring spec"), text);
  expect(applied).toMatchObject({ ok: true });
}

const withMode = (text: string, mode: "report" | "enforce") => JSON.stringify({ ...JSON.parse(text), mode });

test("report mode: row 2 (host-not-allowed) is served and gets a would-refuse mark in the Proxy panel and the timeline", async () => {
  const page = pg.page;
  await applyPolicy(page, withMode(defaultPolicy, "report"));
  await runScenario(page, "served");
  const from = await runScenario(page, "host-not-allowed");
  const decisions = await page.evaluate(
    (seq) =>
      window.__tab?.log
        .ofKind("proxy.decision")
        .filter((e) => e.seq >= seq)
        .map((e) => ({ mode: e.mode, code: e.code, allowed: e.allowed, wouldRefuse: e.wouldRefuse, target: e.target })),
    from,
  );
  expect(decisions).toContainEqual({
    mode: "connect",
    code: "served",
    allowed: true,
    wouldRefuse: "host-not-allowed",
    target: "pastebin.com:443",
  });
  expect(decisions).toContainEqual({ mode: "tunnel", code: "served", allowed: true, wouldRefuse: "host-not-allowed", target: PASTE });
  expect(await page.evaluate(() => window.__tab?.guest?.console.text)).toContain("pasted text");
  await page.locator('[data-tab="proxy"]').click();
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "would refuse host-not-allowed" }).first()).toBeVisible();
  await expect(page.locator('.timeline .mark-would-refuse[data-would-refuse="host-not-allowed"]').first()).toBeAttached();
});

test("Would this be allowed? is answered by the policy in the page, and no request leaves", async () => {
  const page = pg.page;
  await applyPolicy(page, defaultPolicy);
  const left: string[] = [];
  const listen = (request: { url(): string }) => left.push(request.url());
  pg.context.on("request", listen);
  await page.locator('[data-tab="policy"]').click();
  const input = page.getByTestId("policy-check-input");
  const result = page.getByTestId("policy-check-result");
  await input.fill(`GET ${PASTE}`);
  await expect(result).toHaveAttribute("data-code", "host-not-allowed");
  await expect(result).toContainText("refused host-not-allowed: pastebin.com is not on the allowlist");
  await input.fill("GET https://api.github.com/zen");
  await expect(result).toHaveAttribute("data-code", "served");
  await expect(result).toContainText("rule: hosts[0] api.github.com, endpoints[0]");
  await input.fill("POST https://api.github.com/zen");
  await expect(result).toHaveAttribute("data-code", "endpoint-not-allowed");
  await input.fill("https://api.github.com/zen");
  await expect(result).toContainText("METHOD URL");
  // In report mode the same question says what would be refused.
  await applyPolicy(page, withMode(defaultPolicy, "report"));
  await input.fill(`GET ${PASTE}`);
  await expect(result).toHaveAttribute("data-would-refuse", "host-not-allowed");
  pg.context.off("request", listen);
  expect(left.filter((url) => url.includes("pastebin.com") || url.includes("api.github.com"))).toEqual([]);
});

test("a policy drafted from the session's scripted rows, applied rule by rule, is one policy.change and serves row 2", async () => {
  const page = pg.page;
  await page.locator('[data-tab="policy"]').click();
  await page.getByTestId("policy-draft").click();
  const changes = page.getByTestId("policy-draft-changes");
  const pastebin = changes.locator('li[data-host="pastebin.com"]');
  await expect(pastebin).toHaveAttribute("data-change", "add");
  await expect(pastebin).toContainText("+ pastebin.com GET /raw/abc123");
  await expect(changes.locator('li[data-host="api.github.com"]')).toHaveAttribute("data-change", "change");
  // Keep api.github.com's rules as they are: only the new host is accepted.
  await changes.locator('li[data-host="api.github.com"] input[type="checkbox"]').uncheck();
  await expect(changes.locator('li[data-host="raw.githubusercontent.com"] input[type="checkbox"]')).not.toBeChecked();
  // The guide's picture of a draft (docs/guide.md "Writing a policy"), the check answered above it.
  await page.getByTestId("policy-check-input").fill(`GET ${PASTE}`);
  await page.screenshot({ path: "docs/screenshots/policy-draft.jpeg", type: "jpeg", quality: 70 });
  const before = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await page.getByTestId("policy-draft-apply").click();
  await expect(page.getByTestId("policy-draft-status")).toContainText("applied 1 of");
  const changed = await page.evaluate(
    (seq) =>
      window.__tab?.log
        .ofKind("policy.change")
        .filter((e) => e.seq >= seq)
        .map((e) => e.source),
    before,
  );
  expect(changed).toEqual(["policy draft"]);
  const policy = await page.evaluate(() => window.__tab?.policy.current());
  expect(policy?.hosts.map((r) => r.host)).toEqual(["api.github.com", "raw.githubusercontent.com", "pastebin.com"]);
  expect(policy?.hosts[0]).toEqual(JSON.parse(defaultPolicy).hosts[0]);
  // Enforced now, row 2 is served with no would-refuse mark: the drafted rule allows it.
  await applyPolicy(page, withMode(JSON.stringify(policy), "enforce"));
  const from = await runScenario(page, "host-not-allowed");
  const tunnel = await page.evaluate(
    (seq) => window.__tab?.log.ofKind("proxy.decision").find((e) => e.seq >= seq && e.mode === "tunnel"),
    from,
  );
  expect(tunnel).toMatchObject({ code: "served", allowed: true, target: PASTE });
  expect(tunnel?.wouldRefuse).toBeUndefined();
});

test("the downloaded log (the /v0/log lines) replayed in the Replay panel under a narrowed policy lists what is newly refused", async () => {
  const page = pg.page;
  await page.locator('[data-tab="policy"]').click();
  const downloading = page.waitForEvent("download");
  await page.getByTestId("download-log").click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^tab-log-.*\.jsonl$/);
  const path = await download.path();
  const text = readFileSync(path, "utf8");
  const lines = text.trim().split("\n");
  expect(lines.length).toBe(await page.evaluate(() => window.__tab?.log.events().length));
  for (const line of lines) expect(JSON.parse(line)).toHaveProperty("kind");
  // Narrowed: the default policy again (no pastebin.com), enforced.
  await applyPolicy(page, defaultPolicy);
  await page.locator('[data-tab="replay"]').click();
  await page.getByTestId("log-replay-file").setInputFiles(path);
  const summary = page.getByTestId("log-replay-summary");
  await expect(summary).toContainText("newly refused");
  const rows = page.getByTestId("log-replay-rows");
  await expect(rows.locator('tr[data-outcome="newly-refused"]').filter({ hasText: PASTE }).first()).toBeVisible();
  await expect(rows.locator('tr[data-outcome="unchanged"]').filter({ hasText: "https://api.github.com/zen" }).first()).toBeVisible();
  // A decision line that cannot be read is named, and nothing is re-decided.
  await page.getByTestId("log-replay-input").fill(`${lines[0]}\n{"kind":"proxy.decision",not json\n`);
  await page.getByTestId("log-replay-run").click();
  await expect(summary).toContainText("not replayed: log: line 2: not JSON");
  await expect(rows.locator("tbody tr")).toHaveCount(0);
});

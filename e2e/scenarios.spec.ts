import { expect, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, runInGuest, terminalRows } from "./support/guest";
import { refuseUnplanned, routeZen, runScenario as runScenarioButton, upstream } from "./support/upstreams";

// The verdict table (docs/decisions/0005-the-page-is-the-only-network-client.md), live from the guest: each row's commands are
// typed into the real guest by the scenario bar; each verdict lands in the panel of the
// component that decided it. Upstream fetch() calls are fulfilled by Playwright routing.
test.describe.configure({ mode: "serial" });

let pg: Playground;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser);
  const context = pg.context;
  await refuseUnplanned(context);
  await routeZen(context, "Design for failure.");
  await context.route("https://api.github.com/repos/octocat/Hello-World/tarball", upstream(302, { location: "https://evil.example/" }, ""));
});
test.afterAll(async () => {
  await closePlayground(pg);
});

interface Decision {
  code: string;
  by: string;
  target: string;
  mode: string;
  status: number;
}

async function decisionsSince(page: Page, seq: number): Promise<Decision[]> {
  return page.evaluate(
    (from) =>
      (window.__tab?.log.events() ?? []).flatMap((e) => {
        if (e.seq < from) return [];
        if (e.kind === "proxy.decision") return [{ code: e.code, by: e.by, target: e.target, mode: e.mode, status: e.status }];
        if (e.kind === "tls.verdict") return [{ code: e.code, by: e.by, target: e.target, mode: "tls", status: 0 }];
        return [];
      }),
    seq,
  );
}

async function runScenario(page: Page, id: string): Promise<number> {
  const from = await runScenarioButton(page, id);
  // The guide's picture of this row (docs/guide.md), taken once the panels have painted.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: `docs/screenshots/scenario-${id}.jpeg`, type: "jpeg", quality: 70 });
  return from;
}

test("row 1: an allowed GET through the proxy is served (TLS terminated in the page)", async () => {
  const page = pg.page;
  const from = await runScenario(page, "served");
  const decisions = await decisionsSince(page, from);
  expect(decisions).toContainEqual(
    expect.objectContaining({ code: "served", by: "proxy", mode: "tunnel", target: "https://api.github.com/zen" }),
  );
  expect(await page.evaluate(() => window.__tab?.guest?.console.text)).toContain("Design for failure.");
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "served" }).first()).toBeVisible();
  const sessions = await page.evaluate(() => window.__tab?.log.ofKind("tls.session").filter((e) => e.phase === "established"));
  expect(sessions?.[0]).toMatchObject({ sni: "api.github.com", cipher: "TLS_AES_128_GCM_SHA256", group: "x25519" });
});

test("row 2: a host not on the allowlist is refused by .net (host-not-allowed)", async () => {
  const page = pg.page;
  const from = await runScenario(page, "host-not-allowed");
  expect(await decisionsSince(page, from)).toContainEqual(
    expect.objectContaining({ code: "host-not-allowed", by: "proxy", mode: "connect", status: 403 }),
  );
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "host-not-allowed" }).first()).toBeVisible();
  // curl says only "CONNECT tunnel failed, response 403"; the terminal says why, under the command.
  await expect
    .poll(() => terminalRows(page))
    .toContainEqual(expect.stringContaining("tab: proxy refused CONNECT pastebin.com:443: host-not-allowed"));
});

test("row 3: an upstream redirect to another host is not followed (redirect-other-host)", async () => {
  const page = pg.page;
  const from = await runScenario(page, "redirect-other-host");
  expect(await decisionsSince(page, from)).toContainEqual(
    expect.objectContaining({ code: "redirect-other-host", by: "proxy", status: 403 }),
  );
});

test("row 4: an IP literal is refused (ip-literal)", async () => {
  const page = pg.page;
  const from = await runScenario(page, "ip-literal");
  expect(await decisionsSince(page, from)).toContainEqual(expect.objectContaining({ code: "ip-literal", by: "proxy", status: 403 }));
});

test("row 5: CONNECT to an allowed host with another SNI inside is refused (sni-mismatch, by design)", async () => {
  const page = pg.page;
  const from = await runScenario(page, "sni-mismatch");
  const decisions = await decisionsSince(page, from);
  expect(decisions).toContainEqual(expect.objectContaining({ code: "served", mode: "connect", target: "api.github.com:443" }));
  expect(decisions).toContainEqual(expect.objectContaining({ code: "sni-mismatch", by: "design", mode: "tls" }));
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "sni-mismatch" }).first()).toBeVisible();
});

test("row 6: a direct connect() under the agent's policy gets EACCES from the kernel, and no frame leaves", async () => {
  const page = pg.page;
  const framesBefore = await page.evaluate(() => window.__tab?.network?.peer.counters.framesIn ?? -1);
  const from = await runScenario(page, "landlock-denied");
  const result = await page.evaluate((f) => window.__tab?.log.events().find((e) => e.seq >= f && e.kind === "kernel.result"), from);
  expect(result).toMatchObject({ kind: "kernel.result", result: "EACCES", errno: 13, target: "93.184.216.34:443" });
  // Decided from the kernel's own audit record; the tcpconnect line above is the guest's view.
  await expect
    .poll(() => page.evaluate((f) => window.__tab?.log.events().filter((e) => e.seq >= f && e.kind === "kernel.decision"), from))
    .toEqual([
      expect.objectContaining({
        code: "landlock-denied",
        by: "kernel",
        access: ["net.connect_tcp"],
        port: 443,
        target: "93.184.216.34:443",
      }),
    ]);
  const wire = await page.evaluate(
    (f) =>
      window.__tab?.log
        .events()
        .filter((e) => e.seq >= f && (e.kind === "wire.frame" || e.kind === "wire.verdict" || e.kind === "wire.connection"))
        .map((e) => JSON.stringify(e)),
    from,
  );
  expect(wire?.filter((w) => w.includes("93.184.216.34"))).toEqual([]);
  const framesAfter = await page.evaluate(() => window.__tab?.network?.peer.counters.framesIn ?? -1);
  expect(framesAfter).toBe(framesBefore);
  await expect(page.locator("#panel-kernel tbody tr").filter({ hasText: "EACCES" }).first()).toBeVisible();
  await expect(page.locator("#panel-kernel tbody tr").filter({ hasText: "net.connect_tcp 93.184.216.34:443" }).first()).toBeVisible();
});

test("row 7: a DNS query under a ports-only policy is visible on the wire; in an empty namespace there is nothing to look up with", async () => {
  const page = pg.page;
  const from = await runScenario(page, "dns");
  const dns = await page.evaluate((f) => window.__tab?.log.events().filter((e) => e.seq >= f && e.kind === "wire.dns"), from);
  // Only the first command (ports-only Landlock) reaches the wire; `unshare -n` has no route.
  expect(dns?.length).toBeGreaterThanOrEqual(1);
  expect(dns?.every((e) => e.kind === "wire.dns" && e.name === "example.com")).toBe(true);
  const text = await page.evaluate(() => window.__tab?.guest?.console.text ?? "");
  expect(text).toMatch(/REFUSED/);
  expect(text).toMatch(/unreachable|can't connect|Network is unreachable|connection refused|timed out/i);
  await expect(page.locator("#panel-wire tbody tr").filter({ hasText: "example.com" }).first()).toBeVisible();
});

test("a body the upstream cut short is served with its status already sent; the decision, the Proxy panel and the terminal say so", async () => {
  const page = pg.page;
  // The upstream declares 1000 bytes and sends 7: the guest has its 200 before the body ends.
  await pg.context.route(
    "https://raw.githubusercontent.com/octocat/cut/main/notes.txt",
    upstream(200, { "content-type": "text/plain", "content-length": "1000" }, "partial"),
  );
  const from = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  const { output } = await runInGuest(page, "curl -sS https://raw.githubusercontent.com/octocat/cut/main/notes.txt; echo");
  expect(output).toContain("partial");
  const cut = await page.evaluate(
    (f) => window.__tab?.log.events().find((e) => e.seq >= f && e.kind === "proxy.decision" && e.mode === "tunnel"),
    from,
  );
  expect(cut).toMatchObject({ code: "served", status: 200, bytes: 7, bodyCut: true });
  expect(cut?.kind === "proxy.decision" && cut.reason).toContain("status 200 was already sent");
  await page.locator('[data-tab="proxy"]').click();
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "body cut short" }).first()).toBeVisible();
  await expect
    .poll(() => terminalRows(page))
    .toContainEqual(expect.stringContaining("tab: proxy served GET https://raw.githubusercontent.com/octocat/cut"));
});

test("absolute-form http:// is upgraded to https and served; GET /v0/log returns the decisions as JSON lines", async () => {
  const page = pg.page;
  const { output } = await runInGuest(page, "curl -sS -x http://10.0.2.2:3128 http://api.github.com/zen; echo");
  expect(output).toContain("Design for failure.");
  const log = await runInGuest(page, "curl -sS --noproxy '*' http://10.0.2.2:3128/v0/log | grep -c '\"kind\":\"proxy.decision\"'");
  expect(Number(log.output.trim())).toBeGreaterThanOrEqual(6);
  const codes = await runInGuest(page, "curl -sS --noproxy '*' http://10.0.2.2:3128/v0/log | grep -o '\"code\":\"[a-z-]*\"' | sort -u");
  for (const code of ["served", "host-not-allowed", "redirect-other-host", "ip-literal", "sni-mismatch"])
    expect(codes.output).toContain(`"code":"${code}"`);
});

test("GET /v0/policy serves the active policy and its hash", async () => {
  const { output } = await runInGuest(pg.page, "curl -sS --noproxy '*' http://10.0.2.2:3128/v0/policy");
  const body = JSON.parse(output) as { sha256: string; policy: { hosts: { host: string }[] } };
  expect(body.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(body.policy.hosts.map((h) => h.host)).toContain("api.github.com");
});

test("the README's picture shows what its caption says: the terminal beside the six panels, and the Proxy panel holds the rows' verdicts", async () => {
  const page = pg.page;
  await page.locator('[data-tab="proxy"]').click();
  await expect(page.locator('[data-tab="proxy"]')).toHaveAttribute("aria-selected", "true");
  // The caption (README.md, docs/guide.md): the guest's terminal beside the Wire, Proxy,
  // Resolver, Cache, Policy and Kernel panels, under the scenario bar.
  for (const id of ["wire", "proxy", "resolver", "cache", "policy", "kernel"])
    await expect(page.locator(`[data-tab="${id}"]`)).toBeVisible();
  await expect(page.locator("[data-scenario]").first()).toBeVisible();
  const terminal = await page.locator("#terminal").boundingBox();
  const panel = await page.locator("#panel-proxy").boundingBox();
  expect(terminal && panel && terminal.x + terminal.width <= panel.x + 1).toBe(true);
  // What the rows above decided is on screen: a served row and the proxy's refusals.
  const proxy = page.locator("#panel-proxy");
  await expect(proxy.locator("tbody tr.tone-ok").filter({ hasText: "served" }).first()).toBeVisible();
  for (const code of ["host-not-allowed", "ip-literal", "redirect-other-host"])
    await expect(proxy.locator("tbody tr.tone-refused").filter({ hasText: code }).first()).toBeAttached();
  // The terminal shows the commands the rows typed.
  expect((await terminalRows(page)).join("\n")).toContain("curl");
  // Once the panels and the terminal have painted (two frames), the picture.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: "docs/screenshots/playground.png" });
});

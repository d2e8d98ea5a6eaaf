import { type BrowserContext, expect, type Locator, type Page, test } from "@playwright/test";
import { closePlayground, openPlayground, waitForGuest } from "./support/guest";
import { scenarioEnded } from "./support/scenarios";

// Embed mode for docs: `?embed=1&scenario=N` fits an 800×500 iframe (terminal, the
// row's one panel, a bar with Run), starts from the saved snapshot, and runs the row of the
// verdict table (docs/decisions/0005-the-page-is-the-only-network-client.md) only when Run is clicked.
test.describe.configure({ mode: "serial" });

const VIEWPORT = { width: 800, height: 500 };
const TIMEOUT_MS = 420_000;

let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(TIMEOUT_MS);
  // Anything that reaches the network in this file unplanned is a bug: refuse it loudly.
  // Row 4 is refused before any fetch, so no upstream is answered.
  ({ context, page } = await openPlayground(browser, null, {
    viewport: VIEWPORT,
    warm: false,
    refuseUnplanned: true,
    onPageError: (message) => pageErrors.push(message),
  }));
});
test.afterAll(async () => {
  await closePlayground(context ? { context, page } : undefined);
});

async function expectNoScroll(): Promise<void> {
  const sizes = await page.evaluate(() => {
    const d = document.documentElement;
    const b = document.body;
    return { sw: d.scrollWidth, cw: d.clientWidth, sh: d.scrollHeight, ch: d.clientHeight, bsw: b.scrollWidth, bsh: b.scrollHeight };
  });
  expect(sizes.cw).toBe(VIEWPORT.width);
  expect(sizes.ch).toBe(VIEWPORT.height);
  expect(sizes.sw).toBeLessThanOrEqual(sizes.cw);
  expect(sizes.sh).toBeLessThanOrEqual(sizes.ch);
  expect(sizes.bsw).toBeLessThanOrEqual(sizes.cw);
  expect(sizes.bsh).toBeLessThanOrEqual(sizes.ch);
}

async function expectInside(locator: Locator, outer: { x: number; y: number; width: number; height: number } | null = null) {
  await expect(locator).toBeVisible();
  const box = await locator.boundingBox();
  const frame = outer ?? { x: 0, y: 0, ...VIEWPORT };
  expect(box).not.toBeNull();
  if (!box) return;
  expect(box.width).toBeGreaterThan(0);
  expect(box.height).toBeGreaterThan(0);
  expect(box.x).toBeGreaterThanOrEqual(frame.x);
  expect(box.y).toBeGreaterThanOrEqual(frame.y);
  expect(box.x + box.width).toBeLessThanOrEqual(frame.x + frame.width + 0.5);
  expect(box.y + box.height).toBeLessThanOrEqual(frame.y + frame.height + 0.5);
}

test("row 4 embedded: terminal, Proxy panel and Run fit 800×500; Run gets ip-literal from .net", async () => {
  test.setTimeout(TIMEOUT_MS);
  await page.goto("./?embed=1&scenario=4");
  await waitForGuest(page);
  await expect(page.locator("html")).toHaveClass(/\bembed\b/);

  await expectNoScroll();
  const terminal = page.locator("#terminal");
  await expectInside(terminal);
  // The terminal was refitted to its compact box: xterm's screen lies inside it.
  await expectInside(terminal.locator(".xterm-screen"), await terminal.boundingBox());
  const size = await page.evaluate(() => window.__tab?.terminalSize());
  expect(size?.cols).toBeGreaterThanOrEqual(80);
  expect(size?.rows).toBeGreaterThanOrEqual(8);
  await expectInside(page.locator("#panel-proxy"));
  const run = page.locator("[data-embed-run]");
  await expectInside(run);
  await expect(run).toBeEnabled();
  await expectInside(page.locator(".embed-open"));

  for (const hidden of [
    "#panel-wire",
    "#panel-kernel",
    "#panel-resolver",
    "#panel-cache",
    "#panel-policy",
    "#panel-runner",
    "#panel-replay",
  ])
    await expect(page.locator(hidden)).toBeHidden();
  await expect(page.locator(".topbar")).toBeHidden();
  await expect(page.locator("nav.scenarios")).toBeHidden();
  await expect(page.locator(".tabs")).toBeHidden();

  const bar = page.locator(".embed-bar");
  await expect(bar.locator(".embed-title")).toHaveText("4. IP literal");
  await expect(bar.locator(".embed-explanation")).toContainText("Decided by the proxy");
  await expect(bar.locator(".embed-explanation")).toContainText("Verdict table, row 4");
  const open = page.locator(".embed-open");
  await expect(open).toHaveAttribute("target", "_blank");
  await expect(open).toHaveAttribute("rel", "noopener");
  const href = new URL((await open.getAttribute("href")) ?? "");
  expect(href.searchParams.has("embed")).toBe(false);
  expect(href.searchParams.get("scenario")).toBe("4");

  // Nothing runs until the reader clicks Run.
  const decisions = () =>
    page.evaluate(() =>
      (window.__tab?.log.events() ?? []).flatMap((e) => (e.kind === "proxy.decision" ? [{ code: e.code, by: e.by, seq: e.seq }] : [])),
    );
  expect((await decisions()).filter((d) => d.code === "ip-literal")).toEqual([]);
  const from = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await run.click();
  expect((await scenarioEnded(page, "ip-literal", from)).phase).toBe("done");
  expect((await decisions()).filter((d) => d.seq >= from)).toContainEqual({ code: "ip-literal", by: "proxy", seq: expect.any(Number) });
  const row = page.locator("#panel-proxy tbody tr").filter({ hasText: "ip-literal" }).first();
  await expect(row).toBeVisible();
  await expect(row).toBeInViewport();
  await expect(bar.locator(".embed-status")).toContainText("ip-literal by proxy");
  // The line under the bar now says what this run's log recorded, not the row's expected text.
  await expect(bar.locator(".embed-explanation")).toContainText("This run: ip-literal by proxy, as row 4 expects.");

  await expectNoScroll();
  await expectInside(run);
  await expectInside(page.locator("#panel-proxy"));
  await page.screenshot({ path: "docs/screenshots/embed.png" }); // docs/guide.md, "Embedding"
  expect(pageErrors).toEqual([]);
});

test("a second visit starts from the saved snapshot, showing the Kernel panel for row 6", async () => {
  test.setTimeout(TIMEOUT_MS);
  await page.goto("./?embed=1&scenario=landlock-denied");
  await waitForGuest(page);
  const phases = await page.evaluate(() => window.__tab?.log.ofKind("boot.progress").map((e) => e.phase));
  expect(phases).toContain("snapshot-restore");
  await expectNoScroll();
  await expectInside(page.locator("#panel-kernel"));
  await expect(page.locator("#panel-proxy")).toBeHidden();
  await expect(page.locator(".embed-title")).toHaveText("6. Bypass the proxy with connect()");
  await expect(page.locator(".embed-explanation")).toContainText("Decided by the kernel (Landlock)");
  await expect(page.locator("[data-embed-run]")).toBeEnabled();
  expect(pageErrors).toEqual([]);
});

test("a scenario that names no row shows which values are valid, and nothing breaks", async () => {
  test.setTimeout(TIMEOUT_MS);
  await page.goto("./?embed=1&scenario=99");
  const message = page.getByTestId("embed-error");
  await expectInside(message);
  await expect(message).toContainText('scenario="99" is not a row of the verdict table');
  await expect(message).toContainText("1–8");
  await expect(message).toContainText("ip-literal");
  await expect(page.locator("[data-embed-run]")).toHaveCount(0);
  await expectInside(page.locator(".embed-open"));
  await expectInside(page.locator("#terminal"));
  await expect(page.locator(".topbar")).toBeHidden();
  await expectNoScroll();
  expect(pageErrors).toEqual([]);
});

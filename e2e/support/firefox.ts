import puppeteer, { type Browser, type HTTPRequest, type Page } from "puppeteer-core";
import { FIREFOX_PREFS, findFirefox } from "./browsers";
import { CORS } from "./upstreams";

/**
 * The page in Firefox: a stock Firefox ESR driven over WebDriver BiDi by puppeteer-core.
 * Playwright's BiDi channel needs commands newer than Debian's Firefox ESR 140 has
 * (`network.addDataCollector`), so these tests launch Firefox themselves; they still run in
 * `npm test`'s Playwright run (the "firefox" project) and never reach the internet.
 */
export interface FirefoxPlayground {
  browser: Browser;
  page: Page;
}

/** Upstream answers by exact URL; everything else off 127.0.0.1 is refused, as in the Chromium suite. */
export type Upstreams = Record<string, { status: number; contentType: string; body: string }>;

export async function openFirefoxPlayground(baseURL: string, upstreams: Upstreams): Promise<FirefoxPlayground> {
  const firefox = findFirefox();
  if (!firefox?.executablePath) throw new Error("no Firefox here: run `npm test` (scripts/ensure-browsers.ts installs firefox-esr)");
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: firefox.executablePath,
    headless: true,
    dumpio: process.env.TAB_FIREFOX_DUMPIO === "1",
    // The test's own timeout bounds each step; a cold boot on a busy machine takes minutes.
    protocolTimeout: 0,
    extraPrefsFirefox: FIREFOX_PREFS,
    // The window's own size: puppeteer's viewport override needs a BiDi command ESR 140 lacks.
    defaultViewport: null,
    args: ["--window-size=1280,720"],
  });
  const page = await browser.newPage();
  page.on("pageerror", (error) => console.log(`[firefox page error] ${error instanceof Error ? error.message : String(error)}`));
  await page.setRequestInterception(true);
  page.on("request", (request) => void answer(request, baseURL, upstreams));
  // A cold boot (not the shipped state): the file tests the boot and the state it saves.
  await page.goto(new URL("./?boot=fresh", baseURL).href);
  await waitForFirefoxGuest(page);
  return { browser, page };
}

function answer(request: HTTPRequest, baseURL: string, upstreams: Upstreams): Promise<void> {
  const url = request.url();
  if (url.startsWith(new URL(baseURL).origin)) return request.continue();
  const recorded = upstreams[url];
  if (!recorded) return request.abort("blockedbyclient");
  if (request.method() === "OPTIONS")
    return request.respond({
      status: 204,
      headers: { ...CORS, "access-control-allow-headers": "*", "access-control-allow-methods": "GET, HEAD, POST" },
    });
  return request.respond({ status: recorded.status, headers: CORS, contentType: recorded.contentType, body: recorded.body });
}

export async function waitForFirefoxGuest(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__tab !== undefined, { timeout: 0 });
  await page.evaluate(async () => {
    await window.__tab?.guestReady;
  });
}

/** Clicks a scenario button and waits for that scenario to end; returns the log position it started from. */
export async function runFirefoxScenario(page: Page, id: string): Promise<number> {
  const from = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await page.locator(`[data-scenario="${id}"]`).click();
  await page.waitForFunction(
    (id, from) => window.__tab?.log.events().some((e) => e.seq >= from && e.kind === "scenario" && e.id === id && e.phase !== "start"),
    { timeout: 0 },
    id,
    from,
  );
  return from;
}

/** The rows of the Proxy panel, as a person reads them. */
export async function proxyPanelText(page: Page): Promise<string> {
  return page.$$eval("#panel-proxy tbody tr", (rows) => rows.map((r) => r.textContent ?? "").join("\n"));
}

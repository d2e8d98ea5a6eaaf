import puppeteer from "puppeteer-core";
import { FIREFOX_PREFS, findFirefox } from "./browsers";
import type { EnginePage } from "./engine-page";

/**
 * Firefox ESR over WebDriver BiDi, headless, its window `size`, with the suite's preferences and
 * `prefs` over them. The test's own timeout bounds each step (a cold boot on a busy machine takes
 * minutes); the window's own size, because puppeteer's viewport override needs a BiDi command
 * ESR lacks.
 */
export async function launchFirefox(
  size: { width: number; height: number },
  prefs: Record<string, unknown> = {},
  options: { acceptInsecureCerts?: boolean } = {},
) {
  const firefox = findFirefox();
  if (!firefox?.executablePath) throw new Error("no Firefox here: run `npm test` (scripts/ensure-browsers.ts installs firefox-esr)");
  return puppeteer.launch({
    browser: "firefox",
    executablePath: firefox.executablePath,
    headless: true,
    dumpio: process.env.TAB_FIREFOX_DUMPIO === "1",
    protocolTimeout: 0,
    ...options,
    extraPrefsFirefox: { ...FIREFOX_PREFS, ...prefs },
    defaultViewport: null,
    args: [`--window-size=${size.width},${size.height}`],
  });
}

/**
 * The page in Firefox: a stock Firefox ESR driven over WebDriver BiDi by puppeteer-core.
 * Playwright's BiDi channel needs commands newer than Debian's Firefox ESR has
 * (`network.addDataCollector`), so these tests launch Firefox themselves; they still run in
 * `npm test`'s Playwright run (the "firefox" project) and never reach the internet: every
 * request off 127.0.0.1 is refused, as in the Chromium suite.
 */
export async function openFirefoxPage(url: string, size = { width: 1280, height: 720 }): Promise<EnginePage> {
  const browser = await launchFirefox(size);
  try {
    const page = await browser.newPage();
    page.on("pageerror", (error) => console.log(`[firefox page error] ${error instanceof Error ? error.message : String(error)}`));
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      const host = new URL(request.url()).hostname;
      void (host === "127.0.0.1" ? request.continue() : request.abort("blockedbyclient"));
    });
    await page.goto(url);
    const version = await browser.version();
    return {
      engine: "firefox",
      version,
      goto: async (to) => {
        await page.goto(to);
      },
      reload: async () => {
        await page.reload();
      },
      evaluate: (fn, arg) => page.evaluate(fn as (arg: unknown) => never, arg),
      click: (selector) => page.locator(selector).click(),
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

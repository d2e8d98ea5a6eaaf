import type { BrowserContext, Page, Route } from "@playwright/test";
import { scenarioEnded } from "./scenarios";

/** What a browser needs to read a cross-origin answer the page fetched. */
export const CORS = { "access-control-allow-origin": "*", "access-control-expose-headers": "*" };

/**
 * Refuses every request that leaves 127.0.0.1: tests never reach the internet, and anything
 * unplanned is a bug. Register it FIRST: Playwright's later routes take precedence.
 */
export async function refuseUnplanned(context: BrowserContext): Promise<void> {
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort("blockedbyclient"));
}

/** A recorded upstream answer, with the CORS preflight a page's fetch() sends first. */
export function upstream(status: number, headers: Record<string, string>, body: string | Buffer) {
  return (route: Route) =>
    route.request().method() === "OPTIONS"
      ? route.fulfill({
          status: 204,
          headers: { ...CORS, "access-control-allow-headers": "*", "access-control-allow-methods": "GET, HEAD, POST" },
        })
      : route.fulfill({ status, headers: { ...CORS, ...headers }, body });
}

/** `https://api.github.com/zen` (the allowed GET of the verdict table's row 1) answered with `saying`. */
export async function routeZen(context: BrowserContext, saying: string): Promise<void> {
  await context.route("https://api.github.com/zen", upstream(200, { "content-type": "text/plain" }, saying));
}

/** Clicks a scenario button and waits for that scenario to end; returns the log position it started from. */
export async function runScenario(page: Page, id: string, timeoutMs = 90_000): Promise<number> {
  const from = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await page.locator(`[data-scenario="${id}"]`).click();
  await scenarioEnded(page, id, from, timeoutMs);
  return from;
}

// One round of visits to the built page, shared by bench/boot.ts (several rounds, with the
// returning visit) and bench/https.ts (one round beside its HTTPS figures): a first
// visit (empty storage: the shipped post-boot state downloaded and restored) to its first
// command answered, a cold boot of the image (`?boot=fresh`) to its first prompt, and a
// returning visit (the state that cold boot saved in IndexedDB) to its first command.
import type { Browser, Page } from "@playwright/test";

export interface Visits {
  /** ms from navigation to the first command answered. */
  first: number;
  /** ms from navigation to the cold-booted guest's first prompt. */
  cold: number;
  returning: number;
}

async function firstCommandAnswered(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__tab !== undefined);
  await page.evaluate(async () => {
    const guest = await window.__tab?.guestReady;
    if (!guest) return;
    const mark = guest.console.mark;
    guest.console.type('echo "bench-$((40+2))"\n');
    await guest.console.waitFor(/bench-42/, mark);
  });
}

/** One first visit, cold boot and returning visit, in a browser context of their own. */
export async function measureVisits(browser: Browser, url: string): Promise<Visits> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let t0 = Date.now();
    await page.goto(url);
    await firstCommandAnswered(page);
    const first = Date.now() - t0;

    t0 = Date.now();
    await page.goto(`${url}?boot=fresh`);
    await page.waitForFunction(() => window.__tab !== undefined);
    await page.evaluate(() => window.__tab?.guestReady.then(() => undefined));
    const cold = Date.now() - t0;
    await page.waitForFunction(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save"));

    t0 = Date.now();
    await page.reload();
    await firstCommandAnswered(page);
    return { first, cold, returning: Date.now() - t0 };
  } finally {
    await context.close();
  }
}

/** The goal line both benchmarks print (a first visit at most 0.3× a cold boot). */
export function firstVisitRatio(first: number, cold: number): string {
  return `first visit / cold boot: ${(first / cold).toFixed(2)}× (goal ≤ 0.3×)`;
}

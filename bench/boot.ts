// bench/boot: in the built page in Chromium, side by side in one run: a first visit (empty
// storage: the shipped post-boot state is downloaded and restored) to its first command
// answered, a cold boot of the image (`?boot=fresh`) to its first prompt, and a returning visit
// (the state the cold boot saved in IndexedDB) to its first command. Several runs; median and
// spread, and the first visit as a fraction of the cold boot. (Issues 3 and 22.)
import type { Page } from "@playwright/test";
import { median, startBenchPage, table } from "./_browser";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

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

async function main() {
  const bench = await startBenchPage();
  const first: number[] = [];
  const cold: number[] = [];
  const returning: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await bench.browser.newContext();
      const page = await context.newPage();
      let t0 = Date.now();
      await page.goto(bench.url);
      await firstCommandAnswered(page);
      first.push(Date.now() - t0);

      t0 = Date.now();
      await page.goto(`${bench.url}?boot=fresh`);
      await page.waitForFunction(() => window.__tab !== undefined);
      await page.evaluate(() => window.__tab?.guestReady.then(() => undefined));
      cold.push(Date.now() - t0);
      await page.waitForFunction(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save"));

      t0 = Date.now();
      await page.reload();
      await firstCommandAnswered(page);
      returning.push(Date.now() - t0);
      await context.close();
    }
  } finally {
    await bench.stop();
  }
  const spread = (v: number[]) => `${Math.min(...v)}–${Math.max(...v)}`;
  console.log(
    table([
      ["measure", "runs", "median ms", "spread ms"],
      ["first visit: shipped state restored, first command answered", RUNS, median(first), spread(first)],
      ["cold boot of the image to the first prompt (?boot=fresh)", RUNS, median(cold), spread(cold)],
      ["returning visit: IndexedDB state restored, first command answered", RUNS, median(returning), spread(returning)],
    ]),
  );
  console.log(`first visit / cold boot: ${(median(first) / median(cold)).toFixed(2)}× (goal ≤ 0.3×)`);
}

await main();

// bench/boot: cold boot to the first prompt, and snapshot restore to the first command
// answered, in the built page in Chromium. Several runs; median and spread. (Issue 3.)
import { median, startBenchPage, table } from "./_browser";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function main() {
  const bench = await startBenchPage();
  const cold: number[] = [];
  const restore: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await bench.browser.newContext();
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(bench.url);
      await page.waitForFunction(() => window.__tab !== undefined);
      await page.evaluate(() => window.__tab?.guestReady.then(() => undefined));
      cold.push(Date.now() - t0);
      await page.waitForFunction(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save"));
      const t1 = Date.now();
      await page.reload();
      await page.waitForFunction(() => window.__tab !== undefined);
      await page.evaluate(async () => {
        const guest = await window.__tab?.guestReady;
        if (!guest) return;
        const mark = guest.console.mark;
        guest.console.type('echo "bench-$((40+2))"\n');
        await guest.console.waitFor(/bench-42/, mark);
      });
      restore.push(Date.now() - t1);
      await context.close();
    }
  } finally {
    await bench.stop();
  }
  const spread = (v: number[]) => `${Math.min(...v)}–${Math.max(...v)}`;
  console.log(
    table([
      ["measure", "runs", "median ms", "spread ms"],
      ["cold boot to prompt (page load included)", RUNS, median(cold), spread(cold)],
      ["snapshot restore to first command answered", RUNS, median(restore), spread(restore)],
    ]),
  );
}

await main();

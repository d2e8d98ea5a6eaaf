// bench/boot: in the built page in Chromium, side by side in one run: a first visit (empty
// storage: the shipped post-boot state is downloaded and restored) to its first command
// answered, a cold boot of the image (`?boot=fresh`) to its first prompt, and a returning visit
// (the state the cold boot saved in IndexedDB) to its first command. Several runs; median and
// spread, and the first visit as a fraction of the cold boot.
import { median, startBenchPage, table } from "./_browser";
import { firstVisitRatio, measureVisits } from "./_visits";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function main() {
  const bench = await startBenchPage(Number(process.env.BENCH_PORT ?? 4498));
  const first: number[] = [];
  const cold: number[] = [];
  const returning: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const visits = await measureVisits(bench.browser, bench.url);
      first.push(visits.first);
      cold.push(visits.cold);
      returning.push(visits.returning);
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
  console.log(firstVisitRatio(median(first), median(cold)));
}

await main();

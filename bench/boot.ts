// bench/boot: in the built page in Chromium, side by side in one run: a first visit (empty
// storage: the shipped post-boot state is downloaded and restored) to its fresh prompt and to
// its first command answered, a cold boot of the image (`?boot=fresh`) to its first prompt and
// to its first command answered, and a returning visit (the state the cold boot saved in
// IndexedDB) to its first command. Several runs; median and spread, the first visit as a
// fraction of the cold boot (a usable prompt: one that has answered a command, on both sides),
// the emulator's part alone (the worker's restore to the fresh prompt against its boot to the
// first prompt, without the page's start), and where the first visit's time went (the page's
// `tab:` marks and boot phases).
import { loadavg } from "node:os";
import { median, startBenchPage, table } from "./_browser";
import { firstVisitRatio, measureVisits, type Visits } from "./_visits";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

async function main() {
  const loadBefore = load();
  const bench = await startBenchPage(Number(process.env.BENCH_PORT ?? 4498));
  const runs: Visits[] = [];
  try {
    for (let i = 0; i < RUNS; i++) runs.push(await measureVisits(bench.browser, bench.url));
  } finally {
    await bench.stop();
  }
  const of = (key: "first" | "firstPrompt" | "cold" | "coldAnswered" | "returning") => runs.map((r) => r[key]);
  const spread = (v: number[]) => `${Math.min(...v)}–${Math.max(...v)}`;
  const row = (label: string, v: number[]) => [label, RUNS, median(v), spread(v)];
  console.log(
    table([
      ["measure (ms from navigation)", "runs", "median ms", "spread ms"],
      row("first visit: shipped state restored, fresh prompt", of("firstPrompt")),
      row("first visit: first command answered", of("first")),
      row("cold boot of the image (?boot=fresh): first prompt", of("cold")),
      row("cold boot: first command answered", of("coldAnswered")),
      row("returning visit: IndexedDB state restored, first command answered", of("returning")),
    ]),
  );
  console.log(`prompt to prompt: ${(median(of("firstPrompt")) / median(of("cold"))).toFixed(2)}×`);
  console.log(`usable prompt (first command answered), ${firstVisitRatio(median(of("first")), median(of("coldAnswered")))}`);
  // The emulator's part alone, without the page's start: from the worker starting the restore to
  // the fresh prompt, against the worker starting the boot to its first prompt.
  const span = (phases: Record<string, number>, from: string, to: string) =>
    phases[from] !== undefined && phases[to] !== undefined ? phases[to] - phases[from] : null;
  const restoreSpans = runs.map((r) => span(r.firstPhases, "restore-started", "fresh-prompt")).filter((v): v is number => v !== null);
  const bootSpans = runs.map((r) => span(r.coldPhases, "machine-start", "machine-booted")).filter((v): v is number => v !== null);
  if (restoreSpans.length > 0 && bootSpans.length > 0)
    console.log(
      `the emulator alone: restore started to fresh prompt ${median(restoreSpans)} ms (${spread(restoreSpans)}), ` +
        `boot started to first prompt ${median(bootSpans)} ms (${spread(bootSpans)}): ${(median(restoreSpans) / median(bootSpans)).toFixed(2)}×`,
    );

  // Where a first visit's time went: each phase's median time from the navigation, in order.
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.firstPhases)))];
  const phases = names
    .map((name) => ({ name, at: median(runs.map((r) => r.firstPhases[name]).filter((t): t is number => t !== undefined)) }))
    .sort((a, b) => a.at - b.at);
  console.log("\nfirst visit, median ms from navigation to each phase (tab: marks, boot.* events):");
  console.log(phases.map((p) => `  ${String(p.at).padStart(6)}  ${p.name}`).join("\n"));
  console.log(`\nload average (1, 5, 15 min): ${loadBefore} before, ${load()} after`);
}

await main();

// bench/boot: what each start downloads of the guest; then, in the built page in Chromium, side
// by side in one run: a first visit (empty storage: the shipped post-boot state is downloaded
// and restored) to its fresh prompt and to its first command answered, a cold boot of the image
// (`?boot=fresh`) to its first prompt and to its first command answered, and a returning visit
// (the state the cold boot saved in IndexedDB) to its first command. Several runs; median and
// spread; the goal line, the restore against the cold boot (from the page starting the machine
// to the restored guest's fresh prompt, against the same to the booted guest's first prompt:
// docs/decisions/0027); the whole first visit as a fraction of the cold boot, the page's own
// start included (a usable prompt: one that has answered a command, on both sides); and where
// the first visit's time went (the page's `tab:` marks and boot phases).
//
// BENCH_BEFORE=REV (a git revision, e.g. the commit before a new guest image): the image
// committed at REV and this tree's are measured in the same run, round by round in turn, and
// printed side by side (what each start downloads, first visit, cold boot, returning visit).
import { execFileSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { BOOT_FILE_NAMES, SHIPPED_STATE_FILE, SHIPPED_STATE_RECORD } from "../src/machine";
import { type BenchPage, median, startBenchPage, table } from "./_browser";
import { firstVisitRatio, measureVisits, restoreRatio, type Visits } from "./_visits";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** What each start downloads of the guest (the image the page serves, `dir`), in bytes. */
function guestDownloads(dir = "vendor/guest"): string {
  const size = (name: string) => statSync(join(dir, name)).size;
  const total = (names: string[]) => names.reduce((n, name) => n + size(name), 0);
  const { bios, vgaBios, bzImage, initrd } = BOOT_FILE_NAMES;
  const state = size(SHIPPED_STATE_FILE);
  const first = total([SHIPPED_STATE_FILE, SHIPPED_STATE_RECORD, "SHA256SUMS"]);
  const cold = total([bzImage, initrd, bios, vgaBios, "SHA256SUMS"]);
  const replaced = total([bzImage, initrd]);
  return (
    `the guest's download: first visit ${first} bytes (the state ${state}, against the kernel and ` +
    `initramfs it replaces, ${replaced}: ${(state / replaced).toFixed(2)}×, goal ≤ 1, stretch ≤ 3 MB), ` +
    `cold boot ${cold} bytes`
  );
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

type Measure = "first" | "firstPrompt" | "cold" | "coldAnswered" | "returning";
const MEASURES: [Measure, string][] = [
  ["firstPrompt", "first visit: shipped state restored, fresh prompt"],
  ["first", "first visit: first command answered"],
  ["cold", "cold boot of the image (?boot=fresh): first prompt"],
  ["coldAnswered", "cold boot: first command answered"],
  ["returning", "returning visit: IndexedDB state restored, first command answered"],
];

/** The image committed at `rev`, in a directory of its own. */
function imageAt(rev: string): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-guest-"));
  execFileSync("sh", ["-c", `git archive "$0" vendor/guest | tar -x -C "$1"`, rev, dir]);
  return join(dir, "vendor/guest");
}

/** BENCH_BEFORE: the image at that revision and this tree's, measured in turn in one run, side by side. */
async function beforeAndAfter(rev: string) {
  const beforeDir = imageAt(rev);
  console.log(`before (${rev}): ${guestDownloads(beforeDir)}`);
  console.log(`after (this tree): ${guestDownloads()}`);
  const loadBefore = load();
  const port = Number(process.env.BENCH_PORT ?? 4498);
  const after = await startBenchPage(port);
  const before = await startBenchPage(port + 1, [], { guestDir: beforeDir, build: false });
  const runs: { before: Visits[]; after: Visits[] } = { before: [], after: [] };
  // A round whose page lost the harness's promise (Playwright: "Resulting promise was garbage
  // collected", seen on a busy host on either image) is measured again, and says so.
  const round = async (page: BenchPage, side: string): Promise<Visits> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await measureVisits(page.browser, page.url);
      } catch (error) {
        if (attempt >= 3) throw error;
        console.log(`${side}: a round failed (${(error as Error).message.split("\n")[0]}); measuring it again`);
      }
    }
  };
  try {
    for (let i = 0; i < RUNS; i++) {
      runs.before.push(await round(before, "before"));
      runs.after.push(await round(after, "after"));
    }
  } finally {
    await Promise.allSettled([before.stop(), after.stop()]);
  }
  const cell = (v: number[]) => `${median(v)} (${Math.min(...v)}–${Math.max(...v)})`;
  console.log(
    table([
      ["measure (ms from navigation, median (spread))", "runs", `before (${rev})`, "after (this tree)"],
      ...MEASURES.map(([key, label]) => [label, RUNS, cell(runs.before.map((r) => r[key])), cell(runs.after.map((r) => r[key]))]),
    ]),
  );
  console.log(`\nload average (1, 5, 15 min): ${loadBefore} before, ${load()} after`);
}

async function main() {
  if (process.env.BENCH_BEFORE) return beforeAndAfter(process.env.BENCH_BEFORE);
  console.log(guestDownloads());
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
  // The restore against the boot, without the page's start (the same for both): from the page
  // starting the machine to a prompt that takes a command, the restored guest's fresh prompt
  // and the booted guest's first prompt.
  const span = (phases: Record<string, number>, from: string, to: string) =>
    phases[from] !== undefined && phases[to] !== undefined ? phases[to] - phases[from] : null;
  const restoreSpans = runs.map((r) => span(r.firstPhases, "machine-start", "fresh-prompt")).filter((v): v is number => v !== null);
  const bootSpans = runs.map((r) => span(r.coldPhases, "machine-start", "machine-booted")).filter((v): v is number => v !== null);
  if (restoreSpans.length > 0 && bootSpans.length > 0)
    console.log(
      `${restoreRatio(median(restoreSpans), median(bootSpans))}: machine started to fresh prompt ${median(restoreSpans)} ms ` +
        `(${spread(restoreSpans)}), machine started to booted prompt ${median(bootSpans)} ms (${spread(bootSpans)})`,
    );
  console.log(
    `${firstVisitRatio(median(of("first")), median(of("coldAnswered")))} (first command answered; prompt to prompt ` +
      `${(median(of("firstPrompt")) / median(of("cold"))).toFixed(2)}×)`,
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

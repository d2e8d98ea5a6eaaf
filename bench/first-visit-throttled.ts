// bench/first-visit-throttled: the built page in Chromium over an emulated slow link (CDP
// Network.emulateNetworkConditions: 10 Mbit/s each way, 100 ms latency), each visit in a fresh
// browser context (empty cache and storage). A first visit (the shipped state downloaded and
// restored) against a cold boot of the image (`?boot=fresh`) under the same throttle, both to
// their first command answered; the ratio; and where the time went (when the guest's largest
// file started downloading, the bytes fetched before the prompt). docs/performance.md.
import type { Browser, Page } from "@playwright/test";
import { median, startBenchPage, table } from "./_browser";

const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const LINK = { mbit: 10, latencyMs: 100 };

interface Visit {
  /** ms from navigation to the first command answered. */
  toPrompt: number;
  /** ms from navigation to the first byte asked of the guest's largest file (state or kernel). */
  guestFileStart: number;
  /** What the page fetched before the command was answered, in MB (as sent: encoded). */
  fetchedMb: number;
  /** The boot bar's download lines seen, with their speed. */
  barSamples: string[];
}

async function throttledVisit(browser: Browser, url: string, mode: "first" | "cold"): Promise<Visit> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: LINK.latencyMs,
      downloadThroughput: (LINK.mbit * 1e6) / 8,
      uploadThroughput: (LINK.mbit * 1e6) / 8,
    });
    const started = Date.now();
    await page.goto(mode === "first" ? url : `${url}?boot=fresh`);
    await commandAnswered(page, mode);
    const toPrompt = Date.now() - started;
    const timing = await page.evaluate(
      (largest) => {
        const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
        const file = entries.find((e) => e.name.endsWith(largest));
        return {
          guestFileStart: file ? file.startTime : -1,
          bytes: entries.reduce((n, e) => n + (e.transferSize || e.encodedBodySize), 0),
        };
      },
      mode === "first" ? "/guest/state.bin.zst" : "/guest/initramfs.cpio.zst",
    );
    const barSamples = await page.evaluate(
      () =>
        window.__tab?.log
          .ofKind("boot.progress")
          .filter((e) => e.phase === "download")
          .map((e) => e.message) ?? [],
    );
    return { toPrompt, guestFileStart: Math.round(timing.guestFileStart), fetchedMb: timing.bytes / 1e6, barSamples };
  } finally {
    await context.close();
  }
}

/** A first visit: its restored guest answers a command. A cold boot: its first prompt, then a command. */
async function commandAnswered(page: Page, mode: "first" | "cold"): Promise<void> {
  await page.waitForFunction(() => window.__tab !== undefined);
  if (mode === "cold") await page.waitForFunction(() => window.__tab?.guest !== null, undefined, { timeout: 600_000 });
  await page.evaluate(async (cold) => {
    const tab = window.__tab;
    const guest = cold ? tab?.guest : await tab?.guestReady;
    if (!guest) throw new Error("no guest");
    if (cold) await guest.console.firstPrompt;
    const mark = guest.console.mark;
    guest.console.type('echo "bench-$((40+2))"\n');
    await guest.console.waitFor(/bench-42/, mark);
  }, mode === "cold");
}

async function main() {
  const bench = await startBenchPage(4497);
  const first: Visit[] = [];
  const cold: Visit[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      first.push(await throttledVisit(bench.browser, bench.url, "first"));
      cold.push(await throttledVisit(bench.browser, bench.url, "cold"));
    }
  } finally {
    await bench.stop();
  }
  const m = (visits: Visit[], key: "toPrompt" | "guestFileStart" | "fetchedMb") => median(visits.map((v) => v[key]));
  console.log(`link: ${LINK.mbit} Mbit/s each way, ${LINK.latencyMs} ms latency (Chromium's network emulation); ${RUNS} run(s), medians`);
  console.log(
    table([
      ["visit", "first command answered, ms", "largest guest file asked at, ms", "fetched before it, MB"],
      [
        "first visit: shipped state downloaded and restored",
        m(first, "toPrompt"),
        m(first, "guestFileStart"),
        m(first, "fetchedMb").toFixed(1),
      ],
      ["cold boot of the image (?boot=fresh)", m(cold, "toPrompt"), m(cold, "guestFileStart"), m(cold, "fetchedMb").toFixed(1)],
    ]),
  );
  const samples = first[0]?.barSamples ?? [];
  if (samples.length > 0) console.log(`boot bar during the first visit's download, e.g.: "${samples[Math.floor(samples.length / 2)]}"`);
  console.log(`first visit / cold boot, throttled: ${(m(first, "toPrompt") / m(cold, "toPrompt")).toFixed(2)}×`);
}

await main();

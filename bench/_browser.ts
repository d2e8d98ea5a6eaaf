import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { type Browser, chromium, type Page } from "@playwright/test";
import { chromiumLaunchOptions } from "../e2e/support/browsers";

/** Shared by the browser benchmarks: a built page on a preview server, and Chromium. */
export interface BenchPage {
  browser: Browser;
  url: string;
  stop(): Promise<void>;
}

/** How a benchmark's page is served: `guestDir`, another guest image than vendor/guest (vite.config.ts, TAB_GUEST_DIR); `build: false`, the page already built. */
export interface BenchPageOptions {
  guestDir?: string;
  build?: boolean;
}

/** `extraArgs`: more Chromium switches for this benchmark's browser (e.g. host-resolver rules). */
export async function startBenchPage(port = 4498, extraArgs: string[] = [], options: BenchPageOptions = {}): Promise<BenchPage> {
  if (options.build !== false) {
    const build = spawnSync("npx", ["vite", "build", "--logLevel", "warn"], { stdio: "inherit" });
    if (build.status !== 0) throw new Error("vite build failed");
  }
  const env = options.guestDir ? { ...process.env, TAB_GUEST_DIR: options.guestDir } : process.env;
  // A second preview of the same project (another image beside this tree's) passes vite's one-preview lock.
  const args = ["vite", "preview", "--port", String(port), "--strictPort", ...(options.guestDir ? ["--bypass-lock"] : [])];
  const server: ChildProcess = spawn("npx", args, {
    stdio: "ignore",
    detached: true,
    env,
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const launch = chromiumLaunchOptions();
  const browser = await chromium.launch({ ...launch, args: [...launch.args, ...extraArgs] });
  return {
    browser,
    url,
    async stop() {
      await browser.close();
      if (server.pid) process.kill(-server.pid);
    },
  };
}

/**
 * Waits until the page's first boot has saved (or restored) its snapshot, so the save does not
 * run during a measurement.
 */
export async function snapshotSettled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save" || e.phase === "snapshot-restore"),
    undefined,
    { timeout: 300_000 },
  );
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function table(rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n");
}

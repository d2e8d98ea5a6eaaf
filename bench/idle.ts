/**
 * `npm run bench idle`: what an idle page costs a reader's machine while nothing happens.
 *
 * One run, side by side, each in a browser of its own (headless Chromium) on the built site:
 *   - a blank page: the baseline (the browser's own idle cost);
 *   - the playground, idle at its prompt;
 *   - a docs page of five embeds (`?embed=1&scenario=1`), one in view, four far below.
 * CPU is the browser's whole process tree (every process Chromium started: browser, renderers,
 * GPU, utility), read from /proc/<pid>/stat (user + system time) over MEASURE_S seconds once the
 * page settled, in CPU-seconds per second. Memory is the tree's proportional set size (PSS, from
 * /proc/<pid>/smaps_rollup), so pages shared between processes count once, and per embed its own
 * part (anonymous and shared memory, not the browser's files: memoryMb): one embed against
 * five, before the four below were scrolled to, then after each was scrolled into view and
 * reached its prompt. Linux only (/proc).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Frame, type Page } from "@playwright/test";
import { chromiumLaunchOptions } from "../e2e/support/browsers";
import { median, table } from "./_browser";

const PORT = Number(process.env.TAB_BENCH_PORT ?? 4497);
const MEASURE_S = Number(process.env.TAB_IDLE_SECONDS ?? 20);
/** Time after the prompt before measuring: the first prompt's own aftermath (features load, the network connects). */
const SETTLE_S = 5;
const TICKS_PER_S = 100; // USER_HZ on Linux
const EMBEDS = 5;
/** `TAB_IDLE_ONLY=embeds`: only the page of embeds (memory and its CPU), for a quicker look while working on embeds. */
const ONLY_EMBEDS = process.env.TAB_IDLE_ONLY === "embeds";

const GOALS = { playground: 0.01, embeds: 0.02, perEmbedBefore: 10, perEmbedAfter: 60 };

const dir = mkdtempSync(join(tmpdir(), "tab-idle-"));
const build = spawnSync("npx", ["vite", "build", "--logLevel", "warn", "--outDir", dir, "--emptyOutDir"], { stdio: "inherit" });
if (build.status !== 0) throw new Error("vite build failed");
const embedSrc = "./?embed=1&scenario=1";
const EMBED_STYLE = "body{margin:0}iframe{display:block;width:800px;height:500px;border:0}.gap{height:3000px}";
/** A docs page with one embed at the top; the bench adds the others below it (moreEmbeds). */
writeFileSync(
  join(dir, "idle-embeds.html"),
  `<!doctype html><html><head><meta charset="utf-8"><title>embeds</title><style>${EMBED_STYLE}</style></head><body>
<iframe id="embed-0" src="${embedSrc}"></iframe></body></html>`,
);
const server: ChildProcess = spawn("node", ["scripts/serve-static.mjs", dir, String(PORT)], { stdio: "ignore" });
const base = `http://127.0.0.1:${PORT}/`;

/** Every live process whose ancestors include `root`, with `root` itself. */
function tree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(Number(name), Number(fields[1]));
    } catch {
      // it exited meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...parent.keys()].filter(inTree);
}

/** User + system ticks of each process. */
function ticks(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // Fields 14 and 15 (utime, stime) are at 11 and 12 after the command's closing parenthesis.
      out.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // exited
    }
  }
  return out;
}

/**
 * The tree's memory, MB: all of its PSS, and its own part (anonymous and shared-memory PSS).
 * The file pages (Chromium's binary and libraries) are shared with every other Chromium on the
 * machine, so their share of them swings by tens of MB as other browsers start and stop; an
 * embed's cost is the page's own memory, so the per-embed figures are read from that part.
 */
function memoryMb(pids: number[]): { pss: number; own: number } {
  let pss = 0;
  let own = 0;
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      pss += field(rollup, "Pss");
      own += field(rollup, "Pss_Anon") + field(rollup, "Pss_Shmem");
    } catch {
      // exited
    }
  }
  return { pss: pss / 1024, own: own / 1024 };
}

/** The browser's root process: Playwright starts Chromium as a child of this process (the server is excluded). */
function browserRoot(): number {
  const children = tree(process.pid).filter((pid) => pid !== process.pid && pid !== server.pid);
  const roots = children.filter((pid) => {
    try {
      return /chrom|headless_shell/i.test(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "");
    } catch {
      return false;
    }
  });
  const root = roots.sort((a, b) => a - b)[0];
  if (root === undefined) throw new Error("no Chromium process found under this process");
  return root;
}

/** CPU-seconds per second of the browser's tree over MEASURE_S (a process that starts meanwhile counts from 0). */
async function cpuRate(root: number): Promise<number> {
  const before = ticks(tree(root));
  const started = performance.now();
  await new Promise((r) => setTimeout(r, MEASURE_S * 1000));
  const after = ticks(tree(root));
  const seconds = (performance.now() - started) / 1000;
  let used = 0;
  for (const [pid, t] of after) used += t - (before.get(pid) ?? 0);
  return used / TICKS_PER_S / seconds;
}

/**
 * The tree's memory once every frame of the page and every worker (the emulators') collected
 * its garbage (`--expose-gc`): what the browser would give back at its next collection is not
 * an embed's cost.
 */
async function settledMemory(page: Page, root: number): Promise<{ pss: number; own: number }> {
  const collect = () => (globalThis as { gc?: () => void }).gc?.();
  for (const frame of page.frames()) await frame.evaluate(collect).catch(() => undefined);
  for (const worker of page.workers()) await worker.evaluate(collect).catch(() => undefined);

  // The median of five readings a second apart: one reading swung by tens of MB.
  const readings: { pss: number; own: number }[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    readings.push(memoryMb(tree(root)));
  }
  return { pss: median(readings.map((r) => r.pss)), own: median(readings.map((r) => r.own)) };
}

async function withBrowser<T>(run: (browser: Browser, root: number) => Promise<T>): Promise<T> {
  const launch = chromiumLaunchOptions();
  const browser = await chromium.launch({ ...launch, args: [...launch.args, "--js-flags=--expose-gc"] });
  try {
    return await run(browser, browserRoot());
  } finally {
    await browser.close();
  }
}

async function promptIn(target: Page | Frame): Promise<void> {
  await target.waitForFunction(() => window.__tab?.guestReady.then(() => true), undefined, { timeout: 300_000 });
  await target.waitForFunction(() => window.__tab?.featuresReady.then(() => true), undefined, { timeout: 300_000 });
}

const settle = () => new Promise((r) => setTimeout(r, SETTLE_S * 1000));

async function embedFrames(page: Page): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (let i = 0; i < EMBEDS; i++) {
    const element = await page.$(`#embed-${i}`);
    const frame = await element?.contentFrame();
    if (frame) frames.push(frame);
  }
  return frames;
}

try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(base)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const skipped = async () => Number.NaN;
  const blank = await (ONLY_EMBEDS
    ? skipped()
    : withBrowser(async (browser, root) => {
        await browser.newPage();
        await settle();
        return cpuRate(root);
      }));
  const playground = await (ONLY_EMBEDS
    ? skipped()
    : withBrowser(async (browser, root) => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
        await page.goto(base);
        await promptIn(page);
        await settle();
        return cpuRate(root);
      }));
  // Memory in one page, step by step, so each figure is a difference within one browser: one
  // embed at its prompt; then four more below it, not yet viewed; then each viewed to its prompt.
  const embeds = await withBrowser(async (browser, root) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${base}idle-embeds.html`);
    const [first] = await embedFrames(page);
    if (!first) throw new Error("the first embed's frame is missing");
    await promptIn(first);
    await settle();
    // As long as the reading after the four are added waits (settling, then its CPU window):
    // a restored guest's page keeps giving memory back for a while, which read earlier made
    // the four unseen embeds look like less than nothing.
    const oneCpu = await cpuRate(root);
    const one = await settledMemory(page, root);
    await page.evaluate(
      ({ count, src }) => {
        for (let i = 1; i < count; i++) {
          const gap = document.createElement("div");
          gap.className = "gap";
          const frame = document.createElement("iframe");
          frame.id = `embed-${i}`;
          frame.src = src;
          document.body.append(gap, frame);
        }
      },
      { count: EMBEDS, src: embedSrc },
    );
    const frames = await embedFrames(page);
    // An embed not yet seen shows its placeholder (src/page/embed-placeholder.ts) and nothing
    // more; before the placeholder, it built the playground (window.__tab) without its machine.
    for (const frame of frames.slice(1))
      await frame.waitForFunction(
        () => document.querySelector("[data-embed-placeholder]") !== null || window.__tab !== undefined,
        undefined,
        {
          timeout: 120_000,
        },
      );
    await settle();
    const cpu = await cpuRate(root);
    const before = await settledMemory(page, root);
    for (let i = 1; i < frames.length; i++) {
      await page.locator(`#embed-${i}`).scrollIntoViewIfNeeded();
      await promptIn(frames[i]!);
    }
    await page.locator("#embed-0").scrollIntoViewIfNeeded();
    await settle();
    const after = await settledMemory(page, root);
    return { cpu, oneCpu, one, before, after };
  });
  const oneEmbed = embeds.one;
  const extra = EMBEDS - 1;
  const perBefore = (embeds.before.own - oneEmbed.own) / extra;
  const perAfter = (embeds.after.own - oneEmbed.own) / extra;
  const verdict = (value: number, goal: number) => (value <= goal ? "met" : "NOT met");
  console.log(`idle cost over ${MEASURE_S} s after the prompt (+${SETTLE_S} s settling), headless Chromium, ${new Date().toISOString()}`);
  console.log(
    table([
      ["what", "measured", "goal", ""],
      ["blank page (baseline), CPU-s/s", blank.toFixed(3), "", ""],
      ["idle playground, CPU-s/s", playground.toFixed(3), "", ""],
      ["  above blank", (playground - blank).toFixed(3), `≤ ${GOALS.playground}`, verdict(playground - blank, GOALS.playground)],
      ["one embed in view, CPU-s/s", embeds.oneCpu.toFixed(3), "", ""],
      [`${EMBEDS} embeds, one in view, CPU-s/s`, embeds.cpu.toFixed(3), "", ""],
      ["  above blank", (embeds.cpu - blank).toFixed(3), `≤ ${GOALS.embeds}`, verdict(embeds.cpu - blank, GOALS.embeds)],
      ["one embed at its prompt, MB: PSS (own part)", `${oneEmbed.pss.toFixed(0)} (${oneEmbed.own.toFixed(0)})`, "", ""],
      [`${EMBEDS} embeds before viewing, MB`, `${embeds.before.pss.toFixed(0)} (${embeds.before.own.toFixed(0)})`, "", ""],
      [`${EMBEDS} embeds after viewing all, MB`, `${embeds.after.pss.toFixed(0)} (${embeds.after.own.toFixed(0)})`, "", ""],
      [
        "per extra embed, not yet viewed, MB (own)",
        perBefore.toFixed(1),
        `≤ ${GOALS.perEmbedBefore}`,
        verdict(perBefore, GOALS.perEmbedBefore),
      ],
      ["per extra embed, viewed, MB (own)", perAfter.toFixed(1), `≤ ${GOALS.perEmbedAfter}`, verdict(perAfter, GOALS.perEmbedAfter)],
    ]),
  );
} finally {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}

// One round of visits to the built page, shared by bench/boot.ts (several rounds, with the
// returning visit) and bench/https.ts (one round beside its HTTPS figures): a first visit
// (empty storage: the shipped post-boot state downloaded and restored) to its fresh prompt and
// to its first command answered, a cold boot of the image (`?boot=fresh`) to its first prompt
// and to its first command answered, and a returning visit (the state that cold boot saved in
// IndexedDB) to its first command. Every figure is in the page's own time: ms from the
// navigation's start (performance.timeOrigin) to the event, so the harness's own round trips
// are not in it. A restored guest's command is typed at the terminal (keys, as a visitor
// types them) the moment its fresh prompt shows.
import type { Browser, Page } from "@playwright/test";

export interface Visits {
  /** ms from navigation to the first command answered, on a first visit. */
  first: number;
  /** ms from navigation to the restored guest's fresh prompt (boot.progress "fresh"), on a first visit. */
  firstPrompt: number;
  /** ms from navigation to the cold-booted guest's first prompt (boot.progress "ready"). */
  cold: number;
  /** ms from navigation to the cold-booted guest's first command answered, typed at that prompt. */
  coldAnswered: number;
  returning: number;
  /** The first visit's timeline: ms from navigation to each of the page's `tab:` marks and boot phases. */
  firstPhases: Record<string, number>;
  /** The cold boot's timeline, the same way. */
  coldPhases: Record<string, number>;
}

interface Visit {
  prompt: number;
  answered: number;
  phases: Record<string, number>;
}

/** Resolves in the page at `phase` (ms from navigation); rejects at a boot error. */
async function promptAt(page: Page, phase: "fresh" | "ready"): Promise<number> {
  await page.waitForFunction(() => window.__tab !== undefined);
  // No named functions inside: the page runs this as written (no bundler helpers there).
  return page.evaluate(async (promptPhase) => {
    const tab = window.__tab;
    if (!tab) throw new Error("the page has no window.__tab");
    const at = await new Promise<number>((resolve, reject) => {
      const seen = tab.log.ofKind("boot.progress").find((e) => e.phase === promptPhase || e.phase === "error");
      if (seen) return seen.phase === "error" ? reject(new Error(seen.message)) : resolve(seen.time);
      const stop = tab.log.subscribe((e) => {
        if (e.kind !== "boot.progress" || (e.phase !== promptPhase && e.phase !== "error")) return;
        stop();
        if (e.phase === "error") reject(new Error(e.message));
        else resolve(e.time);
      });
    });
    return Math.round(at - performance.timeOrigin);
  }, phase);
}

/** Types a command once the page says the guest is ready and waits for its answer: ms from navigation, and the page's timeline. */
async function firstCommand(page: Page): Promise<{ answered: number; typed: number }> {
  return page.evaluate(async () => {
    const tab = window.__tab;
    if (!tab) throw new Error("the page has no window.__tab");
    const guest = await tab.guestReady;
    const typed = performance.now();
    const mark = guest.console.mark;
    guest.console.type('echo "bench-$((40+2))"\n');
    await guest.console.waitFor(/bench-42/, mark);
    return { answered: Math.round(performance.now()), typed: Math.round(typed) };
  });
}

/** A restore (first or returning visit): its fresh prompt, then a command typed at the terminal at once. */
async function restoredVisit(page: Page): Promise<Visit> {
  await page.waitForFunction(() => window.__tab !== undefined);
  // Watching for the answer from the moment the guest runs, so the time is when it came.
  const answer = page.evaluate(async () => {
    const tab = window.__tab;
    if (!tab) throw new Error("the page has no window.__tab");
    const guest = await tab.guestRunning;
    await guest.console.waitFor(/bench-42/, guest.console.mark);
    return Math.round(performance.now());
  });
  const prompt = await promptAt(page, "fresh");
  // The page focused its terminal when the guest started: this is a visitor's input, the line
  // in one input event (as pasted; key by key the harness's round trips would be in the figure).
  await page.keyboard.insertText('echo "bench-$((40+2))"');
  await page.keyboard.press("Enter");
  const answered = await answer;
  await page.evaluate(() => window.__tab?.guestReady);
  return { prompt, answered, phases: await timeline(page) };
}

/** The page's timeline so far: ms from navigation to each `tab:` mark and boot phase. */
function timeline(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const tab = window.__tab;
    const phases: Record<string, number> = {};
    for (const m of performance.getEntriesByType("mark")) if (m.name.startsWith("tab:")) phases[m.name.slice(4)] = Math.round(m.startTime);
    for (const e of tab?.log.ofKind("boot.progress") ?? [])
      if (e.phase !== "download") phases[`boot.${e.phase}`] = Math.round(e.time - performance.timeOrigin);
    return phases;
  });
}

/** One first visit, cold boot and returning visit, in a browser context of their own. */
export async function measureVisits(browser: Browser, url: string): Promise<Visits> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    const first = await restoredVisit(page);

    // A cold boot's page saves the guest's state at its first prompt (the returning visit
    // restores it): a command typed then would be saved half run. So its command goes once
    // the page is done (guestReady), and the boot's first command answered is its first
    // prompt plus that command's own time.
    await page.goto(`${url}?boot=fresh`);
    const coldPrompt = await promptAt(page, "ready");
    const coldCommand = await firstCommand(page);
    const coldPhases = await timeline(page);

    await page.reload();
    const returning = await restoredVisit(page);
    return {
      first: first.answered,
      firstPrompt: first.prompt,
      cold: coldPrompt,
      coldAnswered: coldPrompt + (coldCommand.answered - coldCommand.typed),
      returning: returning.answered,
      firstPhases: first.phases,
      coldPhases,
    };
  } finally {
    await context.close();
  }
}

/**
 * The whole first visit against a cold boot, both from the navigation and the page's own start
 * included: printed beside the goal, which is the restore's (restoreRatio; docs/decisions/0027).
 */
export function firstVisitRatio(first: number, cold: number): string {
  return `first visit / cold boot, the page's start included: ${(first / cold).toFixed(2)}×`;
}

/**
 * The goal line: the restore at most 0.15× a cold boot (docs/decisions/0027). Both from the
 * machine's start in the same page to a prompt that takes a command: the shipped state restored
 * to its fresh prompt, the image booted to its first prompt.
 */
export function restoreRatio(restore: number, boot: number): string {
  return `the restore / a cold boot: ${(restore / boot).toFixed(2)}× (goal ≤ 0.15×)`;
}

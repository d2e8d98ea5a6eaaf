import type { Browser, BrowserContext, Page } from "@playwright/test";
import { keepWarmState, seedWarmState } from "./warm-state";

/**
 * Helpers for tests that boot the real guest. Boot once per test file (a shared page in
 * `beforeAll`), never once per test, so the suite stays fast as it grows.
 */
/** How long a file's one boot may take: generous, because CI machines can be busy. */
export const BOOT_TIMEOUT_MS = 360_000;

export interface Playground {
  context: BrowserContext;
  page: Page;
}

export interface OpenOptions {
  /** Boot the kernel from scratch (tests of the boot itself), not from the suite's kept state. */
  cold?: boolean;
}

/**
 * A fresh browser context on the playground with the guest up. Unless `cold`, the context
 * starts with the state an earlier file's cold boot saved (e2e/support/warm-state.ts), as a
 * returning visitor's browser would, so each file does not pay for a boot.
 */
export async function openPlayground(browser: Browser, path = "./", options: OpenOptions = {}): Promise<Playground> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
  const local = path.startsWith("./");
  if (local && !options.cold) await seedWarmState(page);
  await page.goto(path);
  await waitForGuest(page);
  if (local) await keepWarmState(page);
  return { context, page };
}

export async function waitForGuest(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__tab !== undefined);
  await page.evaluate(async () => {
    await window.__tab?.guestReady;
  });
}

let counter = 0;

/**
 * Types `command` into the guest's serial console (exactly what a user would type), waits
 * for it to finish, and returns its output and exit status. The end marker's `$?` is
 * expanded by the guest's shell, so the echoed command line never matches it.
 */
export async function runInGuest(page: Page, command: string, timeoutMs = 60_000): Promise<{ output: string; status: number }> {
  const n = ++counter;
  return page.evaluate(
    async ({ command, n, timeoutMs }) => {
      const guest = window.__tab?.guest;
      if (!guest) throw new Error("no guest");
      const mark = guest.console.mark;
      // Both markers are expanded by the shell, so the echoed (and possibly wrapped) command
      // line never matches them: the output is exactly what lies between.
      guest.console.type(`echo "__BEGIN_${n}_$((1))__"; ${command}; echo "__END_${n}_$?__"\n`);
      const begin = new RegExp(`__BEGIN_${n}_1__\r?\n`);
      const end = new RegExp(`__END_${n}_(\\d+)__`);
      const match = await Promise.race([
        guest.console.waitFor(end, mark),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms running: ${command}`)), timeoutMs),
        ),
      ]);
      const text = guest.console.text.slice(mark);
      const start = begin.exec(text);
      const from = start ? start.index + start[0].length : 0;
      const output = text.slice(from, from + text.slice(from).search(end)).replace(/\r/g, "");
      return { output, status: Number(match[1]) };
    },
    { command, n, timeoutMs },
  );
}

import type { Browser, BrowserContext, Page } from "@playwright/test";
import { refuseUnplanned } from "./upstreams";
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
  /** Boot the kernel from scratch (`?boot=fresh`: tests of the boot itself), not from the suite's kept state or the shipped one. */
  cold?: boolean;
  /**
   * Start from the state an earlier file's cold boot kept (default: for a relative path, unless
   * `cold`; true for a link given whole); false: the page restores the shipped state, as a
   * first visit does.
   */
  warm?: boolean;
  /** Refuse every request off the playground's origin that no route answers (registered before `setup`'s routes, so theirs win). */
  refuseUnplanned?: boolean;
  /** What the context needs before the first load: routes, init scripts (a lesson link fetches at once). */
  setup?(context: BrowserContext): Promise<unknown>;
  /** Runs with the page before it loads `path` (its own routes, listeners). */
  beforeLoad?(page: Page): Promise<unknown>;
  /** Told every uncaught error of the page (each is printed either way). */
  onPageError?(message: string): void;
  /** Default 1280×720. */
  viewport?: { width: number; height: number };
  acceptDownloads?: boolean;
  ignoreHTTPSErrors?: boolean;
  /** After the load: wait for the guest and the features (default), or for nothing. */
  wait?: "guest" | "none";
}

/**
 * A fresh browser context on the playground, built the one way every file builds one. With a
 * `path`, the page loads it and (unless `wait: "none"`) the guest is up and the features
 * mounted; with `null`, the test loads its pages itself. Unless `cold` or `warm: false`, the
 * context starts with the state an earlier file's cold boot saved (e2e/support/warm-state.ts),
 * as a returning visitor's browser would, so each file does not pay for a boot.
 */
export async function openPlayground(browser: Browser, path: string | null = "./", options: OpenOptions = {}): Promise<Playground> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 720 },
    ...(options.acceptDownloads ? { acceptDownloads: true } : {}),
    ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
  });
  if (options.refuseUnplanned) await refuseUnplanned(context);
  await options.setup?.(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => {
    console.log(`[page error] ${error.message}`);
    options.onPageError?.(error.message);
  });
  const local = path === null || path.startsWith("./");
  if (options.warm ?? (local && !options.cold)) await seedWarmState(page);
  await options.beforeLoad?.(page);
  if (path === null) return { context, page };
  // With nothing saved, the page would restore the shipped state: `?boot=fresh` boots the image.
  await page.goto(options.cold ? withBootFresh(path) : path);
  if (options.wait === "none") return { context, page };
  await waitForGuest(page);
  if (local) await keepWarmState(page);
  return { context, page };
}

/** `path` with `boot=fresh` added to its query (the "Boot fresh" button's cold boot). */
export function withBootFresh(path: string): string {
  const [base, query = ""] = path.split("?", 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set("boot", "fresh");
  return `${base}?${params}`;
}

/** Waits for the guest's prompt and for the page's features, which mount just after it. */
export async function waitForGuest(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__tab !== undefined);
  await page.evaluate(async () => {
    await window.__tab?.guestReady;
    await window.__tab?.featuresReady;
  });
}

/** A command's end as the guest's shell reported it (its OSC 133 mark): output and exit status. */
export interface Ran {
  output: string;
  status: number;
}

/**
 * Runs `command` in the guest through the page's console driver, the same one scenarios and
 * runs use: it waits for the shell to be idle, types the command (visibly, nothing added),
 * and resolves on its command-finished mark with its exact output and exit status.
 */
export async function runInGuest(page: Page, command: string, timeoutMs = 60_000): Promise<Ran> {
  return page.evaluate(
    async ({ command, timeoutMs }) => {
      // Once the page says the guest is ready: its prompt, its network and the CA.
      const guest = await window.__tab?.guestReady;
      if (!guest) throw new Error("no guest");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const result = await Promise.race([
        guest.driver.run(command),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms running: ${command}`)), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      return { output: result.output, status: result.status ?? -1 };
    },
    { command, timeoutMs },
  );
}

/** How many command lines the shell has seen so far (the index the next one gets). */
export const commandCount = (page: Page) => page.evaluate(() => window.__tab?.guest?.console.shell.records.length ?? 0);

/** Waits for the command line number `index` (see `commandCount`) to finish; who typed it does not matter. */
export async function commandEnd(page: Page, index: number): Promise<Ran & { by: "user" | "page" }> {
  return page.evaluate(async (index) => {
    const c = window.__tab?.guest?.console;
    if (!c) throw new Error("no guest");
    const record = await c.until(() => {
      const r = c.shell.records[index];
      return r?.finished ? r : null;
    });
    return { output: c.output(record), status: record.status ?? -1, by: record.by };
  }, index);
}

/** Types a command line into the terminal the way a person does (focus it, press the keys); does not wait for it. */
export async function typeInTerminal(page: Page, line: string): Promise<number> {
  const index = await commandCount(page);
  await page.locator("#terminal").click();
  await page.keyboard.type(`${line}\n`);
  return index;
}

/** Types a command line as a person does and waits for it to finish. */
export async function typeAndWait(page: Page, line: string): Promise<Ran> {
  return commandEnd(page, await typeInTerminal(page, line));
}

/** The terminal's non-empty rows as xterm drew them (its renderer paints on the next frame). */
export const terminalRows = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll("#terminal .xterm-rows > div")].map((r) => (r.textContent ?? "").trimEnd()).filter((l) => l !== ""),
  );

/**
 * What the guest kernel logs when it breaks: an oops, a BUG, a WARN, a panic. A kernel that
 * logged one may still answer the next command, so a test's own assertions can miss it;
 * `closePlayground` looks for them in `dmesg` at the end of every file that booted a guest.
 */
const KERNEL_FAULT = "Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace";

/** Fails with the kernel's own lines if the guest's `dmesg` holds a fault (see KERNEL_FAULT). */
export async function expectHealthyKernel(page: Page): Promise<void> {
  const ran = await runInGuest(page, `dmesg | grep -E -B2 -A14 '${KERNEL_FAULT}'; echo "kernel log lines: $(dmesg | wc -l)"`, 30_000);
  // Only the count line: grep found nothing, and dmesg did print a log to search.
  if (!/^kernel log lines: [1-9]\d*\n$/.test(ran.output)) {
    throw new Error(`the guest kernel logged a fault (or no log at all):\n${ran.output}`);
  }
}

/** Closes a file's playground after `expectHealthyKernel`; the context is closed either way. */
export async function closePlayground(pg: Playground | undefined): Promise<void> {
  if (!pg) return;
  try {
    await expectHealthyKernel(pg.page);
  } finally {
    await pg.context.close();
  }
}

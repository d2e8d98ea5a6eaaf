/**
 * The page in an engine Playwright does not drive itself (Firefox over WebDriver BiDi,
 * WebKitGTK over classic WebDriver): the few things the shared engine tests
 * (e2e/support/engine-set.ts) do with it. Each engine's launcher implements this once.
 */
export interface EnginePage {
  /** "firefox" or "webkit", as the tests' names say it. */
  readonly engine: string;
  /** The browser's name and version, as its driver reported it (for the report). */
  readonly version: string;
  goto(url: string): Promise<void>;
  /** Reloads the page and waits for its load event. */
  reload(): Promise<void>;
  /**
   * Runs `fn(arg)` in the page and returns its (awaited) result. `fn` travels as its source
   * text, so it must use only its argument and the page's globals; `arg` and the result are JSON.
   */
  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Clicks the first element matching a CSS selector, as a person would (the driver's click). */
  click(selector: string): Promise<void>;
  close(): Promise<void>;
}

/** Polls `fn(arg)` in the page until it returns true; throws with `what` after `timeoutMs`. */
export async function waitInPage<A>(
  page: EnginePage,
  what: string,
  fn: (arg: A) => boolean | Promise<boolean>,
  arg: A,
  timeoutMs: number,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(fn, arg)) return;
    if (Date.now() > until) throw new Error(`in ${page.engine}: timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

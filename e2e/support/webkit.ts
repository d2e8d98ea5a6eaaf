import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { findWebKit } from "./browsers";
import type { EnginePage } from "./engine-page";
import { driverReady, WebDriverSession } from "./webdriver";

/**
 * The page in WebKit: Debian's WebKitGTK MiniBrowser driven by its WebKitWebDriver (classic
 * W3C WebDriver, e2e/support/webdriver.ts), on an Xvfb display of its own when none is set
 * (MiniBrowser has no headless mode). Every iOS browser is WebKit, so this is the engine a
 * large share of the docs' readers run. The processes started here are stopped by `close`.
 */
export async function openWebKitPage(url: string, size = { width: 1280, height: 720 }): Promise<EnginePage> {
  const { session, stop } = await launchWebKit(size);
  try {
    await session.navigate(url);
    return webDriverPage("webkit", session, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts Xvfb (when needed), WebKitWebDriver and a MiniBrowser session of this size; `extra`
 * adds MiniBrowser arguments and W3C capabilities (a proxy, `acceptInsecureCerts`). `stop`
 * ends the session and every process started here.
 */
export async function launchWebKit(
  size: { width: number; height: number },
  extra: { args?: string[]; capabilities?: Record<string, unknown> } = {},
): Promise<{ session: WebDriverSession; stop(): Promise<void> }> {
  const webkit = findWebKit();
  if (!webkit) throw new Error("no WebKit here: run `npm test` (scripts/ensure-browsers.ts installs webkit2gtk-driver and xvfb)");
  const started: ChildProcess[] = [];
  const kill = () => {
    for (const child of started.reverse()) child.kill("SIGTERM");
  };
  try {
    const display = webkit.xvfb ? await startXvfb(webkit.xvfb, started) : process.env.DISPLAY;
    const port = await freePort();
    const driver = spawn(webkit.driver, [`--port=${port}`], {
      env: { ...process.env, DISPLAY: display },
      stdio: ["ignore", "ignore", process.env.TAB_WEBKIT_DUMPIO === "1" ? "inherit" : "ignore"],
    });
    started.push(driver);
    const base = `http://127.0.0.1:${port}`;
    await driverReady(base, 30_000);
    const session = await WebDriverSession.create(base, {
      "webkitgtk:browserOptions": { binary: webkit.executablePath, args: ["--automation", ...(extra.args ?? [])] },
      pageLoadStrategy: "normal",
      ...extra.capabilities,
    });
    // Each evaluate is short (waits poll), but a boot's first evaluate may meet a busy page.
    await session.setTimeouts({ script: 300_000, pageLoad: 300_000 });
    await session.setWindowSize(size.width, size.height);
    return {
      session,
      stop: async () => {
        await session.delete().catch(() => undefined);
        kill();
      },
    };
  } catch (error) {
    kill();
    throw error;
  }
}

/**
 * The MiniBrowser arguments that deny a page all three stores, for every site: WebKitGTK's own
 * settings (WebKitSettings' `enable-html5-local-storage` and `enable-html5-database`, and its
 * `CacheAPI` feature), the ones a WebKitGTK or WPE browser's owner sets. The real browser then
 * gives the page `localStorage === null`, no `indexedDB` and no `caches`. Measured with
 * MiniBrowser 2.50.6 in a frame on another site: nothing else it has denies storage.
 * `--cookies-policy=never`, `--enable-itp`, `--private`, `--features=-Cookie`, a
 * `--content-filter` whose rule is `block-cookies`, and an unusable data directory
 * (`XDG_DATA_HOME`) each leave localStorage, IndexedDB and the Cache API working (the first four
 * drop only cookies).
 */
export const WEBKIT_STORAGE_DENIED_ARGS = ["--enable-html5-local-storage=false", "--enable-html5-database=false", "--features=-CacheAPI"];

/** An EnginePage over a classic WebDriver session. */
export function webDriverPage(engine: string, session: WebDriverSession, close: () => Promise<void>): EnginePage {
  return {
    engine,
    version: session.browser,
    goto: (url) => session.navigate(url),
    reload: () => session.refresh(),
    evaluate: (fn, arg) => evaluateIn(session, engine, fn, arg),
    click: (selector) => session.click(selector),
    close,
  };
}

/** Runs `fn(arg)` in the session's current frame (EnginePage.evaluate says how `fn` travels). */
export async function evaluateIn<A, R>(session: WebDriverSession, engine: string, fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> {
  const answer = (await session.executeAsync(
    `const done = arguments[arguments.length - 1];
     const fn = (${fn.toString()});
     const arg = arguments[0];
     Promise.resolve()
       .then(() => fn(arg))
       .then((value) => done({ ok: true, value: value === undefined ? null : value }),
             (error) => done({ ok: false, error: String((error && error.stack) || error) }));`,
    [arg],
  )) as { ok: true; value: R } | { ok: false; error: string };
  if (!answer.ok) throw new Error(`in ${engine}: ${answer.error}`);
  return answer.value;
}

/** Starts Xvfb on the first free display (it says which on a pipe once it is ready). */
async function startXvfb(xvfb: string, started: ChildProcess[]): Promise<string> {
  const child = spawn(xvfb, ["-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
  });
  started.push(child);
  const number = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdio[3]?.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.includes("\n")) resolve(text.trim());
    });
    child.on("exit", (code) => reject(new Error(`Xvfb exited ${code} before it was ready`)));
  });
  return `:${number}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

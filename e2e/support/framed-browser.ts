import { writeFileSync } from "node:fs";
import { launchFirefox } from "./firefox";
import { evaluateIn, launchWebKit, WEBKIT_STORAGE_DENIED_ARGS } from "./webkit";

/**
 * A docs page on one site with the playground framed in it from another, in an engine
 * Playwright does not drive (Firefox over WebDriver BiDi, WebKitGTK over classic WebDriver):
 * what the cross-site tests (e2e/support/cross-site-set.ts) do with it. The top-level page is
 * the docs page; a frame is named by a CSS selector for its `<iframe>` in that page.
 */
export interface FramedBrowser {
  /** "firefox" or "webkit". */
  readonly engine: string;
  /** The browser's name and version, as its driver reported it. */
  readonly version: string;
  goto(url: string): Promise<void>;
  /** Runs `fn(arg)` in the docs page (as EnginePage.evaluate: `fn` travels as text, `arg` and the result as JSON). */
  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** The same in the framed page (cross-site: the docs page itself cannot reach into it). */
  evaluateInFrame<A, R>(frame: string, fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Clicks an element of the framed page as a person would (the driver's click). */
  clickInFrame(frame: string, selector: string): Promise<void>;
  /** Types a line into the framed page's guest terminal, as a reader would, and presses Enter. */
  typeLineInFrame(frame: string, line: string): Promise<void>;
  /** A picture of the window, written to `path`. */
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * How the browser treats the framed playground's storage: `default` is the engine's own
 * setting for a fresh profile (Firefox: Total Cookie Protection, a frame's storage partitioned
 * by the top-level site); `denied` is the reader's "block all cookies and site data"
 * (Firefox's `network.cookie.cookieBehavior` 2, as about:preferences sets it), in WebKitGTK its
 * settings that turn the page's stores off.
 */
export type StorageSetting = "default" | "denied";

export interface FramedLaunch {
  /** The test's HTTPS proxy (e2e/support/cross-site-hosts.ts): the only way off loopback. */
  proxyPort: number;
  storage: StorageSetting;
  size?: { width: number; height: number };
}

const SIZE = { width: 1280, height: 1200 };

/**
 * Firefox ESR (puppeteer-core over BiDi, as e2e/support/firefox.ts says why). No request
 * interception here: it would sit in every framed load; the proxy prefs keep it off the
 * network instead (loopback is never proxied). The lesson host's test certificate is accepted
 * through the session's `acceptInsecureCerts`, Firefox's equivalent of the Chromium suite's
 * trusted key.
 */
export async function openFirefoxFramed(o: FramedLaunch): Promise<FramedBrowser> {
  const size = o.size ?? SIZE;
  const cookieBehavior = o.storage === "denied" ? 2 : 5;
  const browser = await launchFirefox(
    size,
    {
      // puppeteer's own profile turns Firefox's partitioning off (cookieBehavior0): back to Firefox's default.
      "browser.contentblocking.features.standard": `-tp,tpPrivate,cookieBehavior${cookieBehavior},-cryptoTP,-fp`,
      "network.cookie.cookieBehavior": cookieBehavior,
      "network.cookie.cookieBehavior.optInPartitioning": false,
      "network.proxy.type": 1,
      "network.proxy.share_proxy_settings": false,
      "network.proxy.http": "127.0.0.1",
      "network.proxy.http_port": o.proxyPort,
      "network.proxy.ssl": "127.0.0.1",
      "network.proxy.ssl_port": o.proxyPort,
      "network.proxy.allow_hijacking_localhost": false,
    },
    { acceptInsecureCerts: true },
  );
  try {
    const page = await browser.newPage();
    page.on("pageerror", (error) => console.log(`[firefox page error] ${error instanceof Error ? error.message : String(error)}`));
    const frameOf = async (selector: string) => {
      const element = await page.waitForSelector(selector);
      const frame = await element?.contentFrame();
      if (!frame) throw new Error(`in firefox: no frame at ${selector}`);
      return frame;
    };
    return {
      engine: "firefox",
      version: await browser.version(),
      goto: async (url) => {
        await page.goto(url);
      },
      evaluate: (fn, arg) => page.evaluate(fn as (arg: unknown) => never, arg),
      evaluateInFrame: async (frame, fn, arg) => (await frameOf(frame)).evaluate(fn as (arg: unknown) => never, arg),
      clickInFrame: async (frame, selector) => {
        // A pointer click at the element's centre, in the top-level page's coordinates: this
        // Firefox ESR's BiDi lacks the node locator puppeteer's element click in a frame uses.
        const element = await page.waitForSelector(frame);
        await element?.evaluate((iframe) => iframe.scrollIntoView({ block: "center" }));
        const inside = await (await frameOf(frame)).evaluate((selector) => {
          const target = document.querySelector(selector);
          if (target === null) return null;
          target.scrollIntoView({ block: "center" });
          const r = target.getBoundingClientRect();
          return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
        }, selector);
        if (inside === null) throw new Error(`in firefox: no ${selector} in ${frame}`);
        const at = await element?.evaluate((iframe) => {
          const r = iframe.getBoundingClientRect();
          return { x: r.x + iframe.clientLeft, y: r.y + iframe.clientTop };
        });
        if (!at) throw new Error(`in firefox: no frame at ${frame}`);
        await page.mouse.click(at.x + inside.x, at.y + inside.y);
      },
      typeLineInFrame: async (frame, line) => {
        // Focus the terminal's input, then the keys go where the focus is (inside the frame).
        await (await frameOf(frame)).evaluate(() => document.querySelector<HTMLElement>(".xterm-helper-textarea")?.focus());
        await page.keyboard.type(line);
        await page.keyboard.press("Enter");
      },
      screenshot: async (path) => {
        writeFileSync(path, await page.screenshot());
      },
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * WebKitGTK's MiniBrowser over WebKitWebDriver (e2e/support/webkit.ts), its HTTPS through the
 * test proxy (the W3C `proxy` capability; loopback bypasses it) and the lesson host's test
 * certificate accepted through `acceptInsecureCerts`. `denied` is WebKitGTK's own settings that
 * turn localStorage, IndexedDB and the Cache API off (`WEBKIT_STORAGE_DENIED_ARGS`).
 */
export async function openWebKitFramed(o: FramedLaunch): Promise<FramedBrowser> {
  const { session, stop } = await launchWebKit(o.size ?? SIZE, {
    // MiniBrowser's own proxy setting (an http:// proxy for every scheme, loopback bypassed):
    // WebKitGTK's driver turns the W3C `proxy` capability's sslProxy into an https:// proxy,
    // which it then speaks TLS to.
    args: [
      `--proxy=http://127.0.0.1:${o.proxyPort}`,
      "--ignore-host=localhost",
      "--ignore-host=127.0.0.1",
      ...(o.storage === "denied" ? WEBKIT_STORAGE_DENIED_ARGS : []),
    ],
    capabilities: { acceptInsecureCerts: true },
  });
  /** One frame at a time: every command after a switch runs in that frame until the switch back. */
  const inFrame = async <T>(frame: string, act: () => Promise<T>): Promise<T> => {
    await session.switchToFrame(frame);
    try {
      return await act();
    } finally {
      await session.switchToFrame(null);
    }
  };
  return {
    engine: "webkit",
    version: session.browser,
    goto: (url) => session.navigate(url),
    evaluate: (fn, arg) => evaluateIn(session, "webkit", fn, arg),
    evaluateInFrame: (frame, fn, arg) => inFrame(frame, () => evaluateIn(session, "webkit", fn, arg)),
    clickInFrame: (frame, selector) => inFrame(frame, () => session.click(selector)),
    typeLineInFrame: (frame, line) => inFrame(frame, () => session.sendKeys(".xterm-helper-textarea", `${line}\uE007`)),
    screenshot: async (path) => {
      writeFileSync(path, await session.screenshot());
    },
    close: stop,
  };
}

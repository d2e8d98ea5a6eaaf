import { existsSync, readdirSync } from "node:fs";
import { chromium } from "@playwright/test";

/**
 * Where the end-to-end tests find their three engines. One answer for the Playwright config,
 * the benchmarks and `scripts/ensure-browsers.ts` (which installs what is missing), so the
 * browser a test runs in is the browser the install step chose.
 */
export interface FoundBrowser {
  /** The executable to launch; undefined means Playwright's own download (it knows the path). */
  executablePath: string | undefined;
  /** Where it came from, as printed by `npm test`. */
  source: string;
}

/** Debian's packages, the ones `apt-get install -y chromium firefox-esr` brings. */
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";
export const DEBIAN_FIREFOX = ["/usr/bin/firefox-esr", "/usr/bin/firefox"];

/** Chromium: Debian's when present, else Playwright's own cache (`npx playwright install chromium`). */
export function findChromium(): FoundBrowser | undefined {
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, source: `Debian's ${DEBIAN_CHROMIUM}` };
  const own = playwrightChromium();
  if (own !== undefined) return { executablePath: undefined, source: `Playwright's Chromium (${own})` };
  return undefined;
}

/**
 * Firefox: a stock build driven over WebDriver BiDi (Playwright's `moz-firefox` channel), so
 * only a real Firefox counts (Playwright's own patched Firefox speaks another protocol).
 */
export function findFirefox(): FoundBrowser | undefined {
  const path = DEBIAN_FIREFOX.find((p) => existsSync(p));
  return path === undefined ? undefined : { executablePath: path, source: `Debian's ${path}` };
}

/** WebKitGTK's WebDriver, the MiniBrowser it drives, and the X server it needs (it has no headless mode). */
export interface FoundWebKit extends FoundBrowser {
  executablePath: string;
  /** `WebKitWebDriver`. */
  driver: string;
  /** `Xvfb`, or undefined when a display is already set (`DISPLAY`). */
  xvfb: string | undefined;
}

/** Debian's packages, the ones `apt-get install -y webkit2gtk-driver xvfb` brings. */
export const DEBIAN_WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver";
export const DEBIAN_XVFB = "/usr/bin/Xvfb";

/**
 * WebKit: Debian's WebKitWebDriver (webkit2gtk-driver) with the MiniBrowser of the same
 * WebKitGTK (libwebkit2gtk-4.1, or 4.0), and Xvfb unless a display is set. Playwright's own
 * WebKit build is not used: its download is not reachable everywhere, and Debian's is the one
 * its users run.
 */
export function findWebKit(): FoundWebKit | undefined {
  if (!existsSync(DEBIAN_WEBKIT_DRIVER)) return undefined;
  const browser = miniBrowser();
  if (browser === undefined) return undefined;
  const xvfb = process.env.DISPLAY ? undefined : DEBIAN_XVFB;
  if (xvfb !== undefined && !existsSync(xvfb)) return undefined;
  return {
    executablePath: browser,
    driver: DEBIAN_WEBKIT_DRIVER,
    xvfb,
    source: `Debian's ${DEBIAN_WEBKIT_DRIVER} with ${browser}${xvfb ? ` on ${xvfb}` : ""}`,
  };
}

function miniBrowser(): string | undefined {
  let libs: string[];
  try {
    libs = readdirSync("/usr/lib").filter((d) => d.endsWith("-linux-gnu"));
  } catch {
    return undefined;
  }
  for (const abi of ["4.1", "4.0"])
    for (const lib of libs) {
      const path = `/usr/lib/${lib}/webkit2gtk-${abi}/MiniBrowser`;
      if (existsSync(path)) return path;
    }
  return undefined;
}

function playwrightChromium(): string | undefined {
  try {
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Flags for every Chromium the tests and benchmarks start: they keep it off the network
 * (the tests never reach the internet) and let it run as root in CI.
 *
 * The features turned off are the browser's own omnibox popup, which Chromium 156 builds as a
 * web page in a renderer of its own for every new window, before anyone types in it. The tests
 * and benchmarks open a new window (a context) for every visit, and headless nobody ever sees
 * that popup: measured in a trace, it took one of the test machine's two cores for the first
 * ~3 s of each visit, exactly while the page restores its guest (docs/performance.md, "The
 * browser's own omnibox popup").
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-features=PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup",
];

/**
 * Preferences for the test Firefox: no first-run pages, no updates, telemetry or remote
 * settings fetched, so it stays off the network like Chromium with its flags.
 */
export const FIREFOX_PREFS: Record<string, string | number | boolean> = {
  "app.update.auto": false,
  "app.update.enabled": false,
  "browser.shell.checkDefaultBrowser": false,
  "browser.startup.homepage_override.mstone": "ignore",
  "datareporting.policy.dataSubmissionEnabled": false,
  "toolkit.telemetry.enabled": false,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "services.settings.server": "http://127.0.0.1:9/",
  "extensions.update.enabled": false,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "network.http.http3.enable": false,
  // Headless, nobody can answer the "page is slowing down" bar, and on a loaded CI machine one
  // emulator slice can pass the 10 s default; Firefox would stop the script instead.
  "dom.max_script_run_time": 0,
};

/** Launch options for Chromium in tests and benchmarks. */
export function chromiumLaunchOptions(): { executablePath?: string; args: string[] } {
  const found = findChromium();
  return { ...(found?.executablePath ? { executablePath: found.executablePath } : {}), args: CHROMIUM_ARGS };
}

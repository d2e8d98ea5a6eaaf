/**
 * `npm test` runs this before the end-to-end step: it finds the three engines the suite drives
 * (Chromium; Firefox ESR over WebDriver BiDi; WebKitGTK's MiniBrowser over its WebDriver, with
 * Xvfb for a display) or installs them, and prints which it chose.
 *
 * Order for each engine: one already present (e2e/support/browsers.ts says where it looks);
 * else, as root with apt, Debian's package (after `apt-get update` when apt has no package
 * lists, or when the first try fails on stale ones); else, for Chromium only, Playwright's own
 * download. If nothing works, one line names the command a person must run, and the exit is 1.
 * CI (`.ci/run`) installs no browser itself, so it takes the same path as a newcomer.
 */
import { type FoundBrowser, findChromium, findFirefox, findWebKit } from "../e2e/support/browsers";
import { aptInstall, run } from "./apt";

interface Engine {
  name: string;
  find(): FoundBrowser | undefined;
  /** Debian's packages that bring it (and what it needs to run here). */
  debianPackages: string[];
  /** Playwright's own download, where one can stand in (not for Firefox: BiDi needs a stock build). */
  playwrightInstall?: string[];
  /** What a person must run when nothing here could install it. */
  manual: string;
}

const ENGINES: Engine[] = [
  {
    name: "Chromium",
    find: findChromium,
    debianPackages: ["chromium"],
    playwrightInstall: ["playwright", "install", "chromium"],
    manual: "sudo apt-get install -y chromium   (or: npx playwright install chromium)",
  },
  {
    name: "Firefox",
    find: findFirefox,
    debianPackages: ["firefox-esr"],
    manual: "sudo apt-get install -y firefox-esr",
  },
  {
    // MiniBrowser has no headless mode: without a DISPLAY the tests start Xvfb.
    name: "WebKit",
    find: findWebKit,
    debianPackages: process.env.DISPLAY ? ["webkit2gtk-driver"] : ["webkit2gtk-driver", "xvfb"],
    manual: "sudo apt-get install -y webkit2gtk-driver xvfb",
  },
];

const missing = ENGINES.filter((e) => e.find() === undefined);
aptInstall(
  "ensure-browsers",
  missing.flatMap((e) => e.debianPackages),
);
for (const engine of missing) {
  if (engine.find() === undefined && engine.playwrightInstall) run("ensure-browsers", "npx", engine.playwrightInstall);
}

let failed = 0;
for (const engine of ENGINES) {
  const found = engine.find();
  if (found) {
    console.log(`ensure-browsers: ${engine.name}: ${found.source}`);
  } else {
    failed++;
    console.error(`ensure-browsers: no ${engine.name} found or installable here; run: ${engine.manual}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;

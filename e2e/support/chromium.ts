import { existsSync } from "node:fs";

/**
 * How the tests and benchmarks launch Chromium: Debian's /usr/bin/chromium when present
 * (this machine and CI cannot download Playwright's browsers), Playwright's own otherwise.
 * The flags keep Chromium off the closed network (DEVELOPERS.md).
 */
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";
export const useDebianChromium = existsSync(DEBIAN_CHROMIUM);
export const CHROMIUM_LAUNCH = {
  ...(useDebianChromium ? { executablePath: DEBIAN_CHROMIUM } : {}),
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};

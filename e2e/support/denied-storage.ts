import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "@playwright/test";
import { chromiumLaunchOptions } from "./browsers";

/** Chromium's own content settings, as its Preferences file keeps them (chrome://settings/content). */
export interface ChromiumSiteData {
  /** "Don't allow sites to save data on your device": every store throws or refuses (2 = block). */
  blockAllSiteData?: boolean;
  /** "Block third-party cookies" (Chromium then partitions a frame's storage; it still has some). */
  blockThirdPartyCookies?: boolean;
  /** Origins listed under "Not allowed to use third-party cookies / site data": their frames get no storage at all. */
  blockSiteDataOf?: string[];
}

/**
 * A Chromium whose profile carries a real browser setting that denies storage: the setting a
 * reader chooses in chrome://settings, written into a fresh profile's Preferences before the
 * launch (Playwright has no option for it). Storage denied this way is what a reader meets:
 * `localStorage` throws a SecurityError on access, IndexedDB refuses to open, the Cache API
 * rejects.
 */
export async function launchWithSiteData(
  settings: ChromiumSiteData,
  viewport = { width: 1280, height: 720 },
  extraArgs: string[] = [],
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "tab-denied-storage-"));
  mkdirSync(join(profile, "Default"));
  const prefs = {
    profile: {
      ...(settings.blockAllSiteData ? { default_content_setting_values: { cookies: 2 } } : {}),
      // Chromium 156 reads the mode (1 = block third-party cookies); older ones the boolean.
      ...(settings.blockThirdPartyCookies ? { cookie_controls_mode: 1, block_third_party_cookies: true } : {}),
      ...(settings.blockSiteDataOf
        ? {
            content_settings: {
              exceptions: { cookies: Object.fromEntries(settings.blockSiteDataOf.map((origin) => [`${origin},*`, { setting: 2 }])) },
            },
          }
        : {}),
    },
  };
  writeFileSync(join(profile, "Default", "Preferences"), JSON.stringify(prefs));
  const options = chromiumLaunchOptions();
  const context = await chromium.launchPersistentContext(profile, {
    ...options,
    args: [...options.args, ...extraArgs],
    headless: true,
    viewport,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

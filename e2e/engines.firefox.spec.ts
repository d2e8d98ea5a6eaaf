import { defineEngineSet } from "./support/engine-set";
import { openFirefoxPage } from "./support/firefox";

// The page in Firefox ESR over WebDriver BiDi (the "firefox" project in playwright.config.ts):
// the engine set every engine besides Chromium runs (e2e/support/engine-set.ts).
defineEngineSet("Firefox", openFirefoxPage);

import { defineEngineSet } from "./support/engine-set";
import { openWebKitPage } from "./support/webkit";

// The page in WebKit: Debian's WebKitGTK MiniBrowser over its classic WebDriver (the "webkit"
// project in playwright.config.ts): the engine set every engine besides Chromium runs
// (e2e/support/engine-set.ts).
defineEngineSet("WebKit", openWebKitPage);

import { defineCrossSiteSet } from "./support/cross-site-set";
import { openWebKitFramed, WEBKIT_NO_STORAGE_SETTING } from "./support/framed-browser";

// e2e/cross-site.spec.ts in WebKit (WebKitGTK's MiniBrowser, the "webkit" project): with its
// own storage setting a frame from another site keeps its storage. The tests with all storage
// denied are skipped, saying why: the engine has no such setting.
defineCrossSiteSet({ name: "WebKit", open: openWebKitFramed, defaultStorage: "kept", cannotDeny: WEBKIT_NO_STORAGE_SETTING });

import { defineCrossSiteSet } from "./support/cross-site-set";
import { openWebKitFramed } from "./support/framed-browser";

// e2e/cross-site.spec.ts in WebKit (WebKitGTK's MiniBrowser, the "webkit" project): with its
// own storage setting a frame from another site keeps its storage; with WebKitGTK's settings
// that turn localStorage, IndexedDB and the Cache API off (WEBKIT_STORAGE_DENIED_ARGS in
// e2e/support/webkit.ts: its cookie policy, ITP and private mode deny none of them) the page
// finds `localStorage` null and no IndexedDB or Cache API, runs, and says what it will not keep.
defineCrossSiteSet({ name: "WebKit", open: openWebKitFramed, defaultStorage: "kept", deniedLocalStorage: "null" });

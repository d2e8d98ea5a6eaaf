import { defineCrossSiteSet } from "./support/cross-site-set";
import { openWebKitFramed } from "./support/framed-browser";

// e2e/cross-site.spec.ts in WebKit (WebKitGTK's MiniBrowser, the "webkit" project).
defineCrossSiteSet({ name: "WebKit", open: openWebKitFramed, defaultStorage: "kept" });

import { defineCrossSiteSet } from "./support/cross-site-set";
import { openFirefoxFramed } from "./support/framed-browser";

// e2e/cross-site.spec.ts in Firefox ESR (the "firefox" project): its own storage setting keeps
// a framed site's storage partitioned by the top-level site (Total Cookie Protection), so the
// embed keeps its data there and says nothing is lost; "block all cookies" denies it all.
defineCrossSiteSet({ name: "Firefox", open: openFirefoxFramed, defaultStorage: "kept" });

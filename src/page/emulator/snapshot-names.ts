/**
 * Where the page keeps saved guest states, by name (the e2e helpers use them too): index.html's first script
 * (src/page/early-state-download.ts, which can import nothing at run time) spells the same
 * names, and a test holds the two together.
 */
export const SNAPSHOT_DATABASE = "linux-in-a-tab-snapshots";

/** Left in localStorage while this browser holds a state of the page's (snapshots.ts). */
export const SNAPSHOT_FLAG = "linux-in-a-tab-snapshot-saved";

/**
 * Runs before the rest of the page's script (vite.config.ts writes it into index.html, first;
 * it imports only types): on a first visit, the shipped guest state (the largest file before the first
 * prompt) starts downloading now, beside the page's script and v86's wasm, instead of after
 * them, SHA256SUMS and state.json. The page takes the response (emulator/early-downloads.ts),
 * reads it with progress and checks it against SHA256SUMS as for every guest file; what it does
 * not take it aborts.
 *
 * A first visit is a browser with no snapshot database: a returning visitor restores its own
 * state from IndexedDB and must not pay for this download. Where the browser cannot list its
 * databases, or the address asks for a cold boot, nothing starts here.
 */
import type { EarlyDownload } from "./emulator/early-downloads";

/** The names src/page/emulator/snapshots.ts and shipped-state.ts use. */
const SNAPSHOT_DATABASE = "linux-in-a-tab-snapshots";
const SHIPPED_STATE = "guest/state.bin.zst";

async function startIfFirstVisit(): Promise<void> {
  const params = new URLSearchParams(location.search);
  if (params.get("boot") === "fresh" || params.get("net") === "v86-fetch") return;
  if (typeof indexedDB?.databases !== "function") return;
  const databases = await indexedDB.databases();
  if (databases.some((d) => d.name === SNAPSHOT_DATABASE)) return;
  const url = new URL(SHIPPED_STATE, location.href).href;
  const controller = new AbortController();
  const download: EarlyDownload = { response: fetch(url, { signal: controller.signal }), abort: () => controller.abort() };
  // Unhandled until the page takes it; a failure then is the page's to report (or to retry).
  download.response.catch(() => undefined);
  window.__tabEarlyDownloads = { ...window.__tabEarlyDownloads, [url]: download };
}

startIfFirstVisit().catch(() => undefined);

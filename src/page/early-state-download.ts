/**
 * Runs before the rest of the page's script (vite.config.ts writes it into index.html, first;
 * it imports only types), so that the slowest parts of the guest's start begin at once instead
 * of after the page's own script has loaded and run:
 *
 * - The emulator's worker starts (in the build: vite.config.ts writes its address below), and
 *   v86's wasm compiles here as it downloads (index.html preloads it) and goes to the worker,
 *   which meanwhile loads its own script. Unless the address asks for a cold boot, the worker
 *   then prepares a machine for a saved state (src/page/emulator/machine-worker.ts). The page
 *   takes the worker (emulator/boot.ts).
 * - On a first visit the shipped guest state (the largest file before the first prompt) starts
 *   downloading, then SHA256SUMS and state.json, which the page reads before it (SHA256SUMS
 *   also for a returning visitor's restore). The page takes the responses
 *   (emulator/early-downloads.ts), reads them with progress and checks them against SHA256SUMS
 *   as for every guest file; what it does not take it aborts.
 *
 * A first visit is a browser with no snapshot database: a returning visitor restores its own
 * state from IndexedDB and must not pay for this download. IndexedDB takes a while to say which
 * databases it has (0.2 s into a first visit on the test machine), so the page also leaves a
 * flag in localStorage once it saved or restored a state of its own (emulator/snapshots.ts):
 * without the flag the state's download starts at once, and the page still asks IndexedDB
 * before it takes it (`__tabSnapshotDatabase`), so a state saved before the flag existed is
 * still found. Where the browser cannot list its databases, or the address asks for a cold
 * boot, no download starts here.
 */
import type { MachineExpectation } from "./emulator/boot";
import type { EarlyDownload } from "./emulator/early-downloads";
import type { EmulatorWasmMessage } from "./emulator/machine-phases";

/** The names src/page/emulator/snapshot-names.ts and shipped-state.ts give (early-state-download.test.ts holds them together). */
const SNAPSHOT_DATABASE = "linux-in-a-tab-snapshots";
const SNAPSHOT_FLAG = "linux-in-a-tab-snapshot-saved";
/** What every restore reads first, and what only a first visit downloads. */
const ALWAYS = ["guest/SHA256SUMS"];
const FIRST_VISIT = ["guest/state.bin.zst", "guest/state.json"];
/** The emulator worker's script and v86's wasm, relative to the page; vite.config.ts fills them in the build (empty: the page starts the worker). */
const MACHINE_WORKER: string = "";
const EMULATOR_WASM: string = "";

function startMachine(expects: MachineExpectation): void {
  if (MACHINE_WORKER === "" || EMULATOR_WASM === "" || typeof Worker !== "function") return;
  // The same address emulator/boot.ts (machineWorkerUrl) gives it, saying the wasm comes by message.
  const url = new URL(MACHINE_WORKER, location.href);
  url.searchParams.set("use-scheduling-api", "");
  url.searchParams.set("expect", expects);
  url.searchParams.set("wasm", "posted");
  const worker = new Worker(url, { type: "module", name: "guest machine" });
  const send = (message: EmulatorWasmMessage) => worker.postMessage(message);
  // compileStreaming wants the server's `application/wasm`; without a module (a failed download
  // or compile, a browser that cannot send one) the worker fetches its own.
  fetch(new URL(EMULATOR_WASM, location.href))
    .then((response) =>
      response.headers.get("Content-Type")?.startsWith("application/wasm")
        ? WebAssembly.compileStreaming(response)
        : response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes)),
    )
    .then((module) => send({ kind: "emulator-wasm", module }))
    .catch(() => send({ kind: "emulator-wasm", module: null }));
  window.__tabEarlyMachine = { worker, expects };
}

async function startDownloadsForVisit(): Promise<void> {
  // `globalThis.`: where a browser turns IndexedDB off, the bare name throws a ReferenceError.
  const databases = globalThis.indexedDB;
  if (typeof databases?.databases !== "function") return;
  // A browser that refuses its databases here (storage blocked) has none saved: a first visit.
  const hasDatabase = databases
    .databases()
    .then((databases) => databases.some((d) => d.name === SNAPSHOT_DATABASE))
    .catch(() => false);
  if (!snapshotFlagged()) {
    window.__tabSnapshotDatabase = hasDatabase;
    // The state first: the largest file, and what the first prompt waits for.
    return startDownloads([...FIRST_VISIT, ...ALWAYS]);
  }
  startDownloads((await hasDatabase) ? ALWAYS : [...FIRST_VISIT, ...ALWAYS]);
}

/** Whether the page left its flag: a returning visitor (unreadable storage counts as one: ask IndexedDB). */
function snapshotFlagged(): boolean {
  try {
    return localStorage.getItem(SNAPSHOT_FLAG) !== null;
  } catch {
    return true;
  }
}

function startDownloads(files: string[]): void {
  const downloads: Record<string, EarlyDownload> = {};
  for (const file of files) {
    const url = new URL(file, location.href).href;
    const controller = new AbortController();
    const download: EarlyDownload = { response: fetch(url, { signal: controller.signal }), abort: () => controller.abort() };
    // Unhandled until the page takes it; a failure then is the page's to report (or to retry).
    download.response.catch(() => undefined);
    downloads[url] = download;
  }
  window.__tabEarlyDownloads = { ...window.__tabEarlyDownloads, ...downloads };
}

performance.mark("tab:early-start");
const params = new URLSearchParams(location.search);
const coldBoot = params.get("boot") === "fresh" || params.get("net") === "v86-fetch";
// An embed starts nothing before the reader sees it (embed-placeholder.ts, emulator/first-seen.ts):
// an embed below the fold costs no worker, no wasm and no download.
// Any `?embed` is an embed, as main.ts and features/index.ts (wantsEmbed) read it.
const embed = params.has("embed");
if (!embed) {
  // The build's preload hints for the guest's start (vite.config.ts, preloadGuestStart) wait
  // inert in a template: an embed not yet seen fetches none of them.
  const hints = document.getElementById("guest-start-hints");
  if (hints instanceof HTMLTemplateElement) document.head.append(hints.content);
  try {
    startMachine(coldBoot ? "boot" : "restore");
  } catch {
    // The page starts its own.
  }
  if (!coldBoot) startDownloadsForVisit().catch(() => undefined);
}

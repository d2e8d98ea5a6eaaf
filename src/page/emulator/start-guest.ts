import { utf8 } from "../../bytes";
import type { EventLog } from "../../log";
import { machineRecord, SHIPPED_STATE_FILE } from "../../machine";
import { deferred, messageOf } from "../../platform";
import type { PolicyHolder } from "../../policy";
import type { OwnHandlers } from "../../proxy";
import type { SessionCa } from "../../tls";
import { browserFallbacks, missingBrowserFeatures, UnsupportedBrowserError, unsupportedBrowserMessage } from "../chrome/browser-support";
import type { GuestTerminal } from "../chrome/terminal";
import type { PageLink } from "../link";
import type { PageRelay } from "../relay";
import { bootGuest, type Guest, spawnGuestMachine } from "./boot";
import { connectConsole } from "./console-link";
import { abandonEarlyDownloads, earlyDownloadWaiting, snapshotDatabaseSeen } from "./early-downloads";
import { GuestImageError, type GuestImages, imageHashes, loadGuestImages, loadGuestSums } from "./images";
import type { connectPageNetwork as ConnectPageNetwork, PageNetwork } from "./network";
import { beginSessionCa, obtainSessionCa, type SessionCaStart } from "./session-ca";
import { loadShippedState } from "./shipped-state";
import { loadSnapshot, saveSnapshot, snapshotKey } from "./snapshots";

export interface StartGuestOptions {
  log: EventLog;
  policy: PolicyHolder;
  link: PageLink;
  terminal: GuestTerminal;
  /** The page's own endpoints on the proxy (`/v0/vault/*`, `/v0/model`). */
  proxyHandlers: OwnHandlers;
  /** The Wisp relay setting (the Policy panel's, or `?relay=`). */
  relay?: PageRelay;
  /** Told once v86 exists and its network is connected, before the guest is ready. */
  onBooted(guest: Guest, network: PageNetwork | null): void;
  /** Told when the machine starts: a cold boot of the image, or a restore of a saved state. */
  onStart?(how: "boot" | "restore"): void;
  /** Told once v86 runs the guest, before its first prompt and before its network is connected. */
  onMachine?(guest: Guest): void;
}

export interface StartedGuest {
  guest: Guest;
  /** The key of this image's saved state (the "Boot fresh" button forgets it). */
  snapshotKey: string;
}

/** How the guest starts: a cold boot of the image, or a restore of a saved state. */
type Start = { files: GuestImages } | { state: ArrayBuffer; origin: string };

/**
 * The guest from nothing to an idle prompt: the state this browser saved (a returning visitor),
 * else the shipped state (a first visit: guest/README.md, "The shipped state"), else a cold boot
 * of the verified image, saved for the next visit. `?boot=fresh` (the "Boot fresh" button)
 * always boots cold. Then the terminal on the serial console; a restored guest is made a fresh
 * machine (clock, random pool) and shows its first prompt. Meanwhile the network behind the
 * proxy connects, with the session CA, which the guest reads from the share; once both are
 * there the visitor's keys go through.
 */
export async function startGuest(options: StartGuestOptions): Promise<StartedGuest> {
  const { log, link, terminal } = options;
  performance.mark("tab:guest-start");
  const coldBoot = link.boot === "fresh";
  // `?net=v86-fetch` swaps the page's peer for v86's own fetch backend: only for bench/wire,
  // which compares the two on the same guest, always on a cold boot.
  const v86Fetch = link.net === "v86-fetch";
  // The emulator's worker compiles v86's wasm (and, for a restore, prepares the machine) while
  // the browser is checked and the guest's files download; index.html has usually started it.
  const machine = spawnGuestMachine(coldBoot || v86Fetch ? "boot" : "restore");
  // A guest that cannot start (a bad image, a browser that lacks a piece) leaves no idle worker behind.
  const stopMachine = (error: unknown): never => {
    machine.worker.terminate();
    throw error;
  };
  const browserChecked = checkBrowser(log, terminal);
  browserChecked.catch(() => undefined);
  // Asked for once: a reload after this cold boot restores the state it saves.
  if (coldBoot) history.replaceState(history.state, "", link.with({ boot: null }));
  // The CA's key pairs (a first visit's are new RSA keys, made on WebCrypto's own thread) and
  // the network's code. A cold boot takes seconds: its network and CA get ready meanwhile. A
  // restore's begin once its first prompt shows: beside the restore they took the same two
  // cores (docs/performance.md, "The network after the first prompt").
  const promptShown = deferred<void>();
  const caBegun = coldBoot || v86Fetch ? beginSessionCa() : promptShown.promise.then(() => beginSessionCa());
  caBegun.catch(() => undefined);
  let networking = coldBoot || v86Fetch ? prepareNetwork(caBegun) : null;
  // Awaited below (connected); a failure meanwhile is reported there.
  networking?.catch(() => undefined);
  const { key, start } = await (async () => {
    const sums = await loadGuestSums(BASE);
    const key = snapshotKey(imageHashes(sums), machineRecord());
    const start = await chooseStart({ sums, key, log, cold: coldBoot || v86Fetch }).finally(abandonEarlyDownloads);
    // The browser's check says its sentence before the guest starts.
    await browserChecked;
    return { key, start };
  })()
    .catch(async (error: unknown) => {
      // A browser that lacks a piece is what the page says, whatever else failed meanwhile.
      await browserChecked;
      throw error;
    })
    .catch(stopMachine);
  const restoring = "state" in start;
  options.onStart?.(restoring ? "restore" : "boot");
  const size = () => ({ rows: terminal.terminal.rows, cols: terminal.terminal.cols });
  const guest = await bootGuest(machine, {
    files: restoring ? null : start.files,
    log,
    ...(restoring ? { state: start.state, stateOrigin: start.origin } : {}),
    ...(v86Fetch ? { relayUrl: "fetch" } : {}),
    onOutput: (text) => terminal.write(text),
    terminal: size(),
  });
  // A restore's network loads once the first prompt shows (below), and connects as soon as it
  // is in; a boot (the page found no state to restore after all) need not wait for a prompt.
  if (!restoring) promptShown.resolve();
  networking ??= promptShown.promise.then(() => prepareNetwork(caBegun));
  const connected = networking.then(async ({ ca, connectPageNetwork }) => {
    // The guest reads the CA from the share on every TLS connection (guest/README.md), so a
    // restored state trusts the CA this page holds now; a booting guest gets it once it is up.
    // It goes in before the network listens: a TLS connection from the guest needs the network
    // first, so it always finds the CA. Until then the guest's frames wait in the page (boot.ts),
    // so a command typed at the first prompt that connects somewhere waits, and loses nothing.
    if (!restoring) await guest.ready;
    await guest.writeFile("tls/ca.pem", utf8(ca.certPem));
    const network = v86Fetch
      ? null
      : connectPageNetwork({
          link: guest.link,
          log,
          policy: options.policy,
          ca,
          handlers: options.proxyHandlers,
          ...(options.relay ? { relay: options.relay } : {}),
        });
    options.onBooted(guest, network);
    performance.mark("tab:network-connected");
  });
  connected.catch(() => undefined);
  // What the visitor types waits, in order, for the guest's first prompt (a restored guest's
  // fresh clock and seed come before it), not for the network.
  const openInput = connectConsole(guest.console, terminal, log);
  options.onMachine?.(guest);
  if (restoring) {
    // A restored shell waits before its first prompt (the build saved it there): the first
    // prompt shows, and its marks make the shell idle for whatever types first. Right after the
    // restore the machine tells the guest the terminal's size (given at its start), gives it a
    // fresh clock and seed and only then sends the Enter itself (machine-worker.ts).
    const prompt = guest.console.expectPrompt();
    const [, notFresh] = await Promise.all([guest.ready, guest.freshPrompt()]);
    followTerminalSize(guest, terminal);
    await prompt;
    performance.mark("tab:fresh-prompt");
    promptShown.resolve();
    openInput();
    void guest.markPhases();
    log.append({
      kind: "boot.progress",
      phase: notFresh === null ? "fresh" : "error",
      message:
        notFresh === null
          ? "the restored guest took this page's clock and a fresh random seed"
          : `the restored guest did not take a fresh clock and random seed (${notFresh}): its TLS randoms may repeat another visit's`,
    });
  } else {
    await guest.ready;
    void guest.resize(size()).catch(() => undefined);
    followTerminalSize(guest, terminal);
    openInput();
  }
  await connected.catch(async (error: unknown) => {
    await guest.destroy();
    throw error;
  });
  performance.mark("tab:guest-ready");
  if (!restoring && !v86Fetch) await saveBootedState(guest, key, log);
  return { guest, snapshotKey: key };
}

/**
 * Throws when the browser lacks a piece the page needs; says a fallback on the log and at the
 * top of the terminal.
 */
async function checkBrowser(log: EventLog, terminal: GuestTerminal): Promise<void> {
  const [missing, fallbacks] = await Promise.all([missingBrowserFeatures(globalThis), browserFallbacks(globalThis)]);
  if (missing.length > 0) throw new UnsupportedBrowserError(unsupportedBrowserMessage(missing));
  for (const message of fallbacks) {
    log.append({ kind: "note", level: "warning", source: "page", message });
    terminal.write(`\x1b[33mtab: ${message}\x1b[0m\r\n`);
  }
}

const BASE = "guest/";

/** The saved state of a returning visitor, else the shipped one, else the image to boot. */
async function chooseStart(o: { sums: Map<string, string>; key: string; log: EventLog; cold: boolean }): Promise<Start> {
  if (!o.cold) {
    // Where index.html's first script started the shipped state's download, the browser had
    // no snapshot database, or no flag of one (then the script asked IndexedDB meanwhile):
    // nothing saved to look for.
    const firstVisit = earlyDownloadWaiting(`${BASE}${SHIPPED_STATE_FILE}`) && !(await snapshotDatabaseSeen());
    const saved = firstVisit ? null : await loadSnapshot(o.key);
    if (saved) return { state: saved, origin: "the state saved on your last visit" };
    const shipped = await loadShippedState(BASE, o.sums, o.log);
    if (shipped)
      return {
        state: shipped.state,
        origin: `the shipped state (${(shipped.bytes / 1e6).toFixed(1)} MB download, ${(shipped.rawBytes / 1e6).toFixed(0)} MB restored)`,
      };
  }
  return { files: await loadGuestImages(BASE, o.sums, o.log) };
}

/** What the boot bar says when the guest did not start. */
export function bootErrorMessage(error: unknown): string {
  return error instanceof GuestImageError || error instanceof UnsupportedBrowserError
    ? error.message
    : `the guest did not start: ${messageOf(error)}`;
}

/**
 * The guest's network and the page's CA. Their code (the proxy, TLS, X.509) is most of the
 * emulator's script and a restored guest's first prompt needs none of it, so it loads apart:
 * beside the first screen's script, its parsing and running held back the guest's start, and
 * beside the restore it took the cores the restore needs. A boot's starts with the guest; a
 * restore's once its first prompt shows, its CA's key pairs too (`begun`: session-ca.ts)
 * (docs/performance.md, "The browser's own omnibox popup, and the network after the restore";
 * "The network after the first prompt").
 */
async function prepareNetwork(begun: Promise<SessionCaStart>): Promise<{ ca: SessionCa; connectPageNetwork: typeof ConnectPageNetwork }> {
  const code = await import("./network");
  const ca = await obtainSessionCa(await begun, code);
  const { connectPageNetwork } = code;
  performance.mark("tab:session-ca");
  return { ca, connectPageNetwork };
}

/**
 * The serial console cannot carry the terminal's size: the guest's control line does
 * (src/machine/guest-control.ts), at the start and on every resize.
 */
function followTerminalSize(guest: Guest, terminal: GuestTerminal): void {
  terminal.onResize((cols, rows) => void guest.resize({ rows, cols }).catch(() => undefined));
}

/** Saves the booted state so the next visit starts in about a second. */
async function saveBootedState(guest: Guest, key: string, log: EventLog): Promise<void> {
  const saved = await guest.saveState();
  const stored = await saveSnapshot(key, saved).catch((error: unknown) => {
    // A browser that keeps nothing here (storage-probe.ts said so at start): the guest runs on.
    log.append({ kind: "boot.progress", phase: "snapshot-save", message: `the booted state was not saved: ${messageOf(error)}` });
    return null;
  });
  if (stored === null) return;
  log.append({
    kind: "boot.progress",
    phase: "snapshot-save",
    message: `saved the booted state for the next visit (${(saved.byteLength / 1e6).toFixed(1)} MB, ${(stored / 1e6).toFixed(1)} MB compressed)`,
  });
}

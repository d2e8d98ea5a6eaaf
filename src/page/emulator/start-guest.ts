import { utf8 } from "../../bytes";
import type { EventLog } from "../../log";
import type { PolicyHolder } from "../../policy";
import type { OwnHandlers } from "../../proxy";
import { parseGuestLine } from "../console/guest-lines";
import type { PageRelay } from "../relay";
import { missingBrowserFeatures, UnsupportedBrowserError, unsupportedBrowserMessage } from "../shell/browser-support";
import type { GuestTerminal } from "../shell/terminal";
import { bootGuest, type Guest } from "./boot";
import { writeShareFile } from "./guest-share";
import { GuestImageError, type GuestImages, loadGuestImages } from "./images";
import { connectPageNetwork, type PageNetwork } from "./network";
import { obtainSessionCa } from "./session-ca";
import { loadSnapshot, saveSnapshot, snapshotKey } from "./snapshots";

export interface StartGuestOptions {
  log: EventLog;
  policy: PolicyHolder;
  params: URLSearchParams;
  terminal: GuestTerminal;
  /** The page's own endpoints on the proxy (`/v0/vault/*`, `/v0/model`). */
  proxyHandlers: OwnHandlers;
  /** The Wisp relay setting (the Policy panel's, or `?relay=`). */
  relay?: PageRelay;
  /** The image's download, when the page started it before this module loaded (else it starts here). */
  images?: Promise<GuestImages>;
  /** Told once v86 exists and its network is connected, before the guest is ready. */
  onBooted(guest: Guest, network: PageNetwork | null): void;
}

export interface StartedGuest {
  guest: Guest;
  /** The key of this image's saved state (the "Boot fresh" button forgets it). */
  snapshotKey: string;
}

/**
 * The guest from nothing to an idle prompt: the verified image and the session CA, the saved
 * state when there is one (else a boot, saved for the next visit), the network behind the
 * proxy, the terminal on the serial console, and the files the guest reads from the share.
 */
export async function startGuest(options: StartGuestOptions): Promise<StartedGuest> {
  const { log, params, terminal } = options;
  const missing = await missingBrowserFeatures(globalThis);
  if (missing.length > 0) throw new UnsupportedBrowserError(unsupportedBrowserMessage(missing));
  const [images, ca] = await Promise.all([options.images ?? loadGuestImages("guest/", log), obtainSessionCa()]);
  const key = snapshotKey(images.hashes);
  const state = params.get("boot") === "fresh" ? null : await loadSnapshot(key);
  // `?net=v86-fetch` swaps the page's peer for v86's own fetch backend: only for bench/wire,
  // which compares the two on the same guest.
  const v86Fetch = params.get("net") === "v86-fetch";
  const guest = bootGuest({
    images,
    log,
    ...(state && !v86Fetch ? { state } : {}),
    ...(v86Fetch ? { relayUrl: "fetch" } : {}),
    onOutput: (text) => terminal.write(text),
  });
  const network = v86Fetch
    ? null
    : connectPageNetwork({
        bus: guest.bus,
        log,
        policy: options.policy,
        ca,
        handlers: options.proxyHandlers,
        ...(options.relay ? { relay: options.relay } : {}),
      });
  options.onBooted(guest, network);
  connectConsole(guest, terminal, log);
  await guest.ready;
  // The guest reads the CA from the share on every TLS connection (guest/README.md), so a
  // restored state trusts the CA this page holds now.
  await writeShareFile(guest, "tls/ca.pem", utf8(ca.certPem));
  shareTerminalSize(guest, terminal);
  if (state) {
    // A restored shell sits at a prompt the console never saw: a fresh one (and only it)
    // shows, and its marks make the shell idle for whatever types first.
    await guest.console.requestPrompt();
  } else if (!v86Fetch) {
    await saveBootedState(guest, key, log);
  }
  return { guest, snapshotKey: key };
}

/** What the boot bar says when the guest did not start. */
export function bootErrorMessage(error: unknown): string {
  return error instanceof GuestImageError || error instanceof UnsupportedBrowserError
    ? error.message
    : `the guest did not start: ${(error as Error).message}`;
}

/** Keys go to the guest; its console lines that report something become events. */
function connectConsole(guest: Guest, terminal: GuestTerminal, log: EventLog): void {
  terminal.onInput((text) => guest.console.type(text));
  guest.console.onLine((line) => {
    const event = parseGuestLine(line);
    if (event) log.append(event);
  });
}

/**
 * The serial console cannot carry the terminal's size: the guest's prompt reads it from the
 * share (guest/rootfs/usr/bin/tab-winsize).
 */
function shareTerminalSize(guest: Guest, terminal: GuestTerminal): void {
  const tellSize = (cols: number, rows: number) => void writeShareFile(guest, "winsize", utf8(`${rows} ${cols}\n`)).catch(() => undefined);
  tellSize(terminal.terminal.cols, terminal.terminal.rows);
  terminal.onResize(tellSize);
}

/** Saves the booted state so the next visit starts in about a second. */
async function saveBootedState(guest: Guest, key: string, log: EventLog): Promise<void> {
  const saved = await guest.saveState();
  const stored = await saveSnapshot(key, saved);
  log.append({
    kind: "boot.progress",
    phase: "snapshot-save",
    message: `saved the booted state for the next visit (${(saved.byteLength / 1e6).toFixed(1)} MB, ${(stored / 1e6).toFixed(1)} MB compressed)`,
  });
}

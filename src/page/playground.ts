import { utf8 } from "../bytes";
import { createEventLog, type EventLog } from "../log";
import { createPolicyHolder, DEFAULT_POLICY, type PolicyHolder } from "../policy";
import { missingBrowserFeatures, UnsupportedBrowserError, unsupportedBrowserMessage } from "./browser-support";
import { createConsoleTurns } from "./console-turns";
import { h, replaceChildren } from "./dom";
import { bootGuest, type Guest } from "./emulator/boot";
import { GuestImageError, loadGuestImages } from "./emulator/images";
import { dropSnapshot, loadSnapshot, saveSnapshot, snapshotKey } from "./emulator/snapshots";
import { mountFeatures } from "./features";
import { modelHandlers } from "./features/model";
import { vaultHandlers } from "./features/vault";
import { parseGuestLine } from "./guest-lines";
import { writeShareFile } from "./guest-share";
import { createLayout, type Layout } from "./layout";
import { connectPageNetwork, type PageNetwork } from "./network";
import { createPanels, createPanelTabs } from "./panels";
import { createPolicyEditor } from "./policy-editor";
import { mountScenarioBar, type ScenarioBar } from "./scenario-bar";
import { SCENARIOS } from "./scenarios";
import { obtainSessionCa } from "./session-ca";
import { createTerminal } from "./terminal";
import { createWireCounters } from "./wire-counters";

/** What the page exposes on `window.__tab` for the e2e suite and for curious users. */
export interface PlaygroundHandle {
  log: EventLog;
  guest: Guest | null;
  network: PageNetwork | null;
  policy: PolicyHolder;
  layout: Layout;
  scenarios: ScenarioBar;
  /** The terminal's size in character cells. */
  terminalSize(): { cols: number; rows: number };
  /** What features exposed for tests (`ctx.expose`). */
  features: Record<string, unknown>;
  /** Resolves once the guest is ready (or rejects with the boot error). */
  guestReady: Promise<Guest>;
}

declare global {
  interface Window {
    __tab?: PlaygroundHandle;
  }
}

const params = new URLSearchParams(location.search);

export async function startPlayground(container: HTMLElement): Promise<PlaygroundHandle> {
  const log = createEventLog();
  const layout = createLayout();
  container.appendChild(layout.root);

  const policy = createPolicyHolder(DEFAULT_POLICY, log);
  void policy.replace(DEFAULT_POLICY, "default policy");
  const policyEditor = createPolicyEditor(policy, log);
  let network: PageNetwork | null = null;
  const wireCounters = createWireCounters(() => network?.peer.counters ?? null);
  const panels = createPanels(log, { policy: policyEditor.element, wire: wireCounters });
  const tabs = createPanelTabs(panels);
  layout.panelsBox.appendChild(tabs.element);

  const term = createTerminal(layout.terminalBox);
  let resolveReady!: (g: Guest) => void;
  let rejectReady!: (e: unknown) => void;
  const guestReady = new Promise<Guest>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  const turns = createConsoleTurns();
  const scenarios = mountScenarioBar({
    turns,
    bar: layout.scenarioBar,
    scenarios: SCENARIOS,
    guest: guestReady,
    log,
    selectPanel: (id) => tabs.select(id),
  });
  guestReady.catch(() => undefined); // reported on the log and in the boot bar
  const handle: PlaygroundHandle = {
    log,
    guest: null,
    network: null,
    policy,
    layout,
    scenarios,
    guestReady,
    features: {},
    terminalSize: () => ({ cols: term.terminal.cols, rows: term.terminal.rows }),
  };
  window.__tab = handle;

  mountFeatures({
    log,
    layout,
    policy,
    params,
    guest: guestReady,
    network: () => network,
    panel: (id) => {
      const found = panels.find((p) => p.id === id);
      if (!found) throw new Error(`no panel ${id}`);
      return found;
    },
    addPanel: (panel) => {
      panels.push(panel);
      tabs.add(panel);
    },
    selectPanel: (id) => tabs.select(id),
    scenarios,
    turns,
    expose: (name, value) => {
      handle.features[name] = value;
    },
    exposed: (name) => handle.features[name],
  });

  let bootFailed = false;
  log.subscribe((e) => {
    if (e.kind !== "boot.progress" || bootFailed) return;
    bootFailed = e.phase === "error";
    layout.bootText.textContent = e.message;
    if (e.phase === "download" && e.total) layout.bootBar.value = (e.loaded ?? 0) / e.total;
    if (e.phase === "ready" || e.phase === "snapshot-restore") layout.bootBar.value = 1;
  });

  void (async () => {
    try {
      const missing = await missingBrowserFeatures(globalThis);
      if (missing.length > 0) throw new UnsupportedBrowserError(unsupportedBrowserMessage(missing));
      const [images, ca] = await Promise.all([loadGuestImages("guest/", log), obtainSessionCa()]);
      const key = snapshotKey(images.hashes);
      const fresh = params.get("boot") === "fresh";
      const state = fresh ? null : await loadSnapshot(key);
      // `?net=v86-fetch` swaps the page's peer for v86's own fetch backend: only for
      // bench/wire, which compares the two on the same guest.
      const v86Fetch = params.get("net") === "v86-fetch";
      const guest = bootGuest({
        images,
        log,
        ...(state && !v86Fetch ? { state } : {}),
        ...(v86Fetch ? { relayUrl: "fetch" } : {}),
        onOutput: (text) => term.write(text),
      });
      handle.guest = guest;
      if (!v86Fetch) {
        network = connectPageNetwork({ bus: guest.bus, log, policy, ca, handlers: { ...vaultHandlers(log), ...modelHandlers(log) } });
        handle.network = network;
      }
      term.onInput((text) => guest.console.type(text));
      guest.console.onLine((line) => {
        const event = parseGuestLine(line);
        if (event) log.append(event);
      });
      await guest.ready;
      // The guest reads the CA from the share on every TLS connection (guest/README.md),
      // so a restored state trusts the CA this page holds now.
      await writeShareFile(guest, "tls/ca.pem", utf8(ca.certPem));
      // The serial console cannot carry the terminal's size: the guest's prompt reads it from
      // the share (guest/rootfs/usr/bin/tab-winsize).
      const tellSize = (cols: number, rows: number) =>
        void writeShareFile(guest, "winsize", utf8(`${rows} ${cols}\n`)).catch(() => undefined);
      tellSize(term.terminal.cols, term.terminal.rows);
      term.onResize(tellSize);
      if (state) {
        // A restored shell sits at a prompt the console never saw: a fresh one (and only it)
        // shows, and its marks make the shell idle for whatever types first.
        await guest.console.requestPrompt();
      } else if (!v86Fetch) {
        // Save the booted state so the next visit starts in about a second.
        const saved = await guest.saveState();
        const stored = await saveSnapshot(key, saved);
        log.append({
          kind: "boot.progress",
          phase: "snapshot-save",
          message: `saved the booted state for the next visit (${(saved.byteLength / 1e6).toFixed(1)} MB, ${(stored / 1e6).toFixed(1)} MB compressed)`,
        });
      }
      replaceChildren(
        layout.bootActions,
        h(
          "button",
          {
            class: "small",
            attrs: { type: "button", title: "Forget the saved state and boot the kernel again" },
            on: {
              click: () => {
                void dropSnapshot(key).then(() => location.reload());
              },
            },
          },
          "Boot fresh",
        ),
      );
      // Embedded in someone's docs, the page must not take the reader's focus (or scroll to it).
      if (params.get("embed") !== "1") term.focus();
      resolveReady(guest);
    } catch (error) {
      const message =
        error instanceof GuestImageError || error instanceof UnsupportedBrowserError
          ? error.message
          : `the guest did not start: ${(error as Error).message}`;
      log.append({ kind: "boot.progress", phase: "error", message });
      rejectReady(error);
    }
  })();

  return handle;
}

import * as Comlink from "comlink";
import { type ConsoleDriver, createConsoleDriver, createLandlockAuditReader, GuestConsole } from "../../console";
import type { EventLog } from "../../log";
import type { BootFiles, GuestCheck, GuestCheckResult } from "../../machine";
import type { FrameLink } from "../../net";
import { createHeldLink } from "./held-link";
import type { JitState } from "./jit-governor";
import { MACHINE_EXPECTS, type MachinePhase } from "./machine-phases";
import { batchPerTask, type MachineMessage } from "./machine-port";
import type { MachineApi, TerminalSize } from "./machine-worker";
import machineWorkerUrlText from "./machine-worker.ts?worker&url";

export interface Guest {
  /** The guest's NIC: the page's network peer sits on its other end. */
  link: FrameLink;
  console: GuestConsole;
  /** The one way the page types commands (scenarios, runs, replays, the tour, the tests). */
  driver: ConsoleDriver;
  /** Resolves when the guest's shell shows its first prompt (a booted guest) or the emulator runs (a restored one, whose console still has to ask for a fresh prompt). */
  ready: Promise<void>;
  saveState(): Promise<ArrayBuffer>;
  /** Writes a file into the 9p share the guest mounts at /mnt/tab, creating its folders. */
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  /**
   * A restored guest only: once restored, the machine tells the guest the terminal's size
   * (BootOptions.terminal), gives it a fresh clock and seed, and sends the Enter that draws the
   * first prompt (machine-worker.ts). Resolves with null when the guest took the seed, else
   * with why not.
   */
  freshPrompt(): Promise<string | null>;
  /** Tells the guest its terminal's size now (its control line; SIGWINCH to what runs). */
  resize(size: TerminalSize): Promise<void>;
  /** Runs a lesson's check out of band on the control line (never on the console). */
  runCheck(check: GuestCheck): Promise<GuestCheckResult>;
  /** Marks the emulator worker's phases so far on the page's timeline (`tab:` marks). */
  markPhases(): Promise<void>;
  /** Stops the guest's CPU until `resume` (a machine nobody sees: machine-visibility.ts). */
  pause(): Promise<void>;
  /** Runs a paused guest again with this page's clock; null once it took it, else why not. */
  resume(): Promise<string | null>;
  /** Whether the guest's CPU is stopped. */
  paused(): Promise<boolean>;
  /** v86's count of instructions the guest executed (32 bits, wraps). */
  instructions(): Promise<number>;
  /** Whether v86's JIT compiles now: only under sustained load (src/page/emulator/jit-governor.ts). */
  jit(): Promise<JitState>;

  destroy(): Promise<void>;
}

export interface BootOptions {
  /** The verified guest files to boot; null when restoring `state` (a state holds all of memory). */
  files: BootFiles | null;
  log: EventLog;
  /** A saved state to start from instead of booting: raw, or zstd (the worker decompresses it: src/machine/raw-state.ts). */
  state?: ArrayBuffer;
  /** Says where the state came from, for the boot progress ("restored the shipped state in 1.2 s"). */
  stateOrigin?: string;
  /** v86's own network backend (e.g. "fetch"), instead of the page's peer on the link. */
  relayUrl?: string;
  /** Where serial output goes (the terminal): the guest's text with its OSC 133 marks. */
  onOutput(text: string): void;
  /** The terminal's size: a restored guest is told it before its first prompt. */
  terminal?: TerminalSize;
}

/** The emulator's worker, started before the guest's files are in so its script and v86's wasm load beside them. */
export interface GuestMachine {
  worker: Worker;
  remote: Comlink.Remote<MachineApi>;
}

/** What the page expects the machine to run: a restore lets the worker prepare a machine for the state. */
export type MachineExpectation = "restore" | "boot";

declare global {
  interface Window {
    /** The emulator's worker, started by index.html's first script (early-state-download.ts), until the page takes it. */
    __tabEarlyMachine?: { worker: Worker; expects: MachineExpectation };
  }
}

/** The worker's address: v86's scheduling switch, and what to prepare for. */
export function machineWorkerUrl(base: string | URL, expects: MachineExpectation): URL {
  const url = new URL(base);
  // v86 times its slices with `scheduler.postTask` on its own thread when its script's URL says
  // so (where the browser has it); otherwise it starts a second worker and messages it on every
  // slice.
  url.searchParams.set("use-scheduling-api", "");
  url.searchParams.set(MACHINE_EXPECTS, expects);
  return url;
}

/**
 * The emulator's worker: the one index.html started (it loads beside the page's own script),
 * else a new one. A worker that prepared for the other way still serves (it drops what it prepared).
 */
export function spawnGuestMachine(expects: MachineExpectation): GuestMachine {
  const early = globalThis.window?.__tabEarlyMachine;
  if (early) delete globalThis.window.__tabEarlyMachine;
  const worker =
    early?.worker ??
    new Worker(machineWorkerUrl(new URL(machineWorkerUrlText, location.href), expects), { type: "module", name: "guest machine" });
  return { worker, remote: Comlink.wrap<MachineApi>(worker) };
}

/** Marks the worker's phases on the page's timeline (`performance.getEntriesByType("mark")`, as `tab:` marks). */
async function markMachinePhases(machine: Comlink.Remote<MachineApi>): Promise<void> {
  const times = await machine.times();
  for (const [phase, at] of Object.entries(times) as [MachinePhase, number][])
    performance.mark(`tab:${phase}`, { startTime: Math.max(0, at - performance.timeOrigin) });
}

/**
 * Starts v86 on the guest machine (src/machine/machine.ts) in its own worker
 * (machine-worker.ts): boots the verified image, or restores a saved state. The files and the
 * state move to the worker (transferred): the page keeps no copy.
 */
export async function bootGuest({ worker, remote: machine }: GuestMachine, options: BootOptions): Promise<Guest> {
  const { log } = options;
  if (!options.files && !options.state) throw new Error("nothing to start: neither guest files nor a saved state");
  const restoring = options.state !== undefined;
  log.append({
    kind: "boot.progress",
    phase: "start",
    message: restoring ? `restoring ${options.stateOrigin ?? "a saved guest state"}` : "booting Linux",
  });
  const { port1: port, port2: machinePort } = new MessageChannel();
  const post = (message: MachineMessage) => port.postMessage(message);

  const guestConsole = new GuestConsole((text) => post({ kind: "type", text }));
  // The kernel's own refusals, from the control line rather than the terminal (docs/decisions/0029).
  const audit = createLandlockAuditReader();
  guestConsole.onOutput(options.onOutput);
  // Frames the guest sends before the page's network listens wait for it (held-link.ts).
  const nic = createHeldLink(batchPerTask<Uint8Array>((frames) => post({ kind: "frames", frames })));
  port.onmessage = (event: MessageEvent<MachineMessage>) => {
    const message = event.data;
    if (message.kind === "serial") guestConsole.receive(message.bytes);
    else if (message.kind === "audit") {
      const decision = audit.read(message.type, message.text);
      if (decision) log.append(decision);
    } else if (message.kind === "frames") for (const frame of message.frames) nic.receive(frame);
  };
  const { link } = nic;

  const transfers = [
    ...(options.state ? [options.state] : []),
    ...(options.files ? [options.files.bios, options.files.vgaBios, options.files.bzImage, options.files.initrd] : []),
  ];
  const started = performance.now();
  performance.mark("tab:machine-start");
  await machine.start(
    Comlink.transfer(
      {
        files: options.files,
        port: machinePort,
        ...(options.state ? { state: options.state } : {}),
        ...(options.relayUrl ? { relayUrl: options.relayUrl } : {}),
        ...(options.terminal ? { terminal: options.terminal } : {}),
      },
      [machinePort, ...new Set(transfers)],
    ),
  );
  const ready = (
    restoring
      ? machine.ready()
      : // Ready at the first prompt's marks (guest/rootfs/etc/profile), not at anything printed.
        guestConsole.firstPrompt
  ).then(() => {
    performance.mark(restoring ? "tab:machine-restored" : "tab:machine-booted");
    // A restore's come after its fresh prompt (start-guest.ts), which the worker asks for too.
    if (!restoring) void markMachinePhases(machine).catch(() => undefined);
    log.append({
      kind: "boot.progress",
      phase: restoring ? "snapshot-restore" : "ready",
      message: `${restoring ? `restored ${options.stateOrigin ?? "a saved guest state"}` : "booted"} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    });
  });

  return {
    link,
    console: guestConsole,
    driver: createConsoleDriver(guestConsole),
    ready,
    saveState: () => machine.saveState(),
    writeFile: (path, bytes) => machine.writeFile(path, bytes),
    freshPrompt: () => machine.freshPrompt(),
    resize: (size) => machine.resize(size),
    runCheck: (check) => machine.runCheck(check),
    markPhases: () => markMachinePhases(machine).catch(() => undefined),
    pause: () => machine.pause(),
    resume: () => machine.resume(),
    paused: () => machine.paused(),
    instructions: () => machine.instructions(),
    jit: () => machine.jit(),

    async destroy() {
      port.close();
      await machine.destroy().catch(() => undefined);
      worker.terminate();
    },
  };
}

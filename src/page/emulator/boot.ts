import { V86 } from "v86";
import wasmUrl from "v86/build/v86.wasm?url";
import type { EventLog } from "../../log";
import { type ConsoleDriver, createConsoleDriver } from "../console/console-driver";
import { GuestConsole } from "./console";
import { type BootFiles, machineOptions } from "./machine";

/** The two bus methods the page uses (v86 keeps `bus` off its public types). */
export interface V86Bus {
  register(name: string, fn: (data: Uint8Array) => void, thisValue?: unknown): void;
  send(name: string, data: Uint8Array): void;
}

export interface Guest {
  emulator: V86;
  bus: V86Bus;
  console: GuestConsole;
  /** The one way the page types commands (scenarios, runs, replays, the tour, the tests). */
  driver: ConsoleDriver;
  /** Resolves when the guest's shell shows its first prompt (a booted guest) or the emulator runs (a restored one, whose console still has to ask for a fresh prompt). */
  ready: Promise<void>;
  saveState(): Promise<ArrayBuffer>;
  /** Writes a file into the 9p share the guest mounts at /mnt/tab. */
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  destroy(): Promise<void>;
}

export interface BootOptions {
  /** The verified guest files to boot; null when restoring `state` (a state holds all of memory). */
  files: BootFiles | null;
  log: EventLog;
  /** A saved state to start from instead of booting: raw, or zstd (v86 tells them apart by magic). */
  state?: ArrayBuffer;
  /** Says where the state came from, for the boot progress ("restored the shipped state in 1.2 s"). */
  stateOrigin?: string;
  /** v86's own network backend (e.g. "fetch"), instead of the page's peer on the bus. */
  relayUrl?: string;
  /** Where serial output goes (the terminal): the guest's text with its OSC 133 marks. */
  onOutput(text: string): void;
}

/**
 * Starts v86 on the guest machine (src/page/emulator/machine.ts): boots the verified image, or
 * restores a saved state. Serial output is batched, because v86 reports it one byte at a time.
 */
export function bootGuest(options: BootOptions): Guest {
  const { log } = options;
  if (!options.files && !options.state) throw new Error("nothing to start: neither guest files nor a saved state");
  const restoring = options.state !== undefined;
  log.append({
    kind: "boot.progress",
    phase: "start",
    message: restoring ? `restoring ${options.stateOrigin ?? "a saved guest state"}` : "booting Linux",
  });
  const emulator = new V86({
    wasm_path: wasmUrl,
    ...machineOptions(restoring ? null : options.files, options.relayUrl ? { relayUrl: options.relayUrl } : {}),
    ...(options.state ? { initial_state: { buffer: options.state } } : {}),
  });
  const bus = (emulator as unknown as { bus: V86Bus }).bus;
  const guestConsole = new GuestConsole((text) => emulator.serial0_send(text));

  let pending: number[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const bytes = Uint8Array.from(pending);
    pending = [];
    guestConsole.receive(bytes);
  };
  guestConsole.onOutput(options.onOutput);
  emulator.add_listener("serial0-output-byte", (byte: number) => {
    pending.push(byte);
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 4);
    }
  });

  const started = performance.now();
  const ready = (
    restoring
      ? new Promise<void>((resolve) => emulator.add_listener("emulator-ready", () => resolve()))
      : // Ready at the first prompt's marks (guest/rootfs/etc/profile), not at anything printed.
        guestConsole.firstPrompt
  ).then(() => {
    log.append({
      kind: "boot.progress",
      phase: restoring ? "snapshot-restore" : "ready",
      message: `${restoring ? `restored ${options.stateOrigin ?? "a saved guest state"}` : "booted"} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    });
  });

  return {
    emulator,
    bus,
    console: guestConsole,
    driver: createConsoleDriver(guestConsole),
    ready,
    saveState: () => emulator.save_state(),
    writeFile: (path, bytes) => emulator.create_file(path, bytes),
    destroy: () => emulator.destroy(),
  };
}

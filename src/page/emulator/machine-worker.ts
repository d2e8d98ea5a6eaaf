import * as Comlink from "comlink";
import { V86 } from "v86";
import { type BootFiles, machineOptions, type ShareFs, sharePath, writeIntoShare } from "../../machine";
import { connectV86Link, type V86Bus } from "../../net";
import { createJitGovernor, JIT_WINDOW_MS, type JitGovernor, type JitState } from "./jit-governor";
import { batchPerTask, type MachineMessage } from "./machine-port";

/**
 * The emulator in a worker of its own. v86 runs the guest in slices on the thread it lives on;
 * on the page's main thread every slice delayed the page's own work for the guest, its proxy,
 * its TLS terminator and above all its `fetch()`, which the browser sent only between slices
 * (docs/performance.md, "Where the time went"). Here the guest computes on its own thread and
 * the page answers it at once. The page keeps everything else: the downloads and their
 * checks, the network peer, the proxy, TLS, the terminal. The worker also decides when v86's
 * JIT may compile (jit-governor.ts).
 */

export interface MachineStart {
  /** The verified guest files to boot, or null when restoring `state`. */
  files: BootFiles | null;
  /** A saved state (raw or zstd) to restore instead of booting. */
  state?: ArrayBuffer;
  /** v86's wasm, fetched by the page (its preload in index.html is that request). */
  wasm: ArrayBuffer;
  /** v86's own network backend ("fetch", for bench/https and bench/wire) instead of the page's peer. */
  relayUrl?: string;
  /** The port the frames, the serial output and the typed text go over (machine-port.ts). */
  port: MessagePort;
}

interface V86Internals {
  bus: V86Bus;
  fs9p?: ShareFs;
  /** v86 hands its wasm to its zstd worker, to unpack a zstd state; it keeps it only when it fetched the wasm itself. */
  wasm_source?: ArrayBuffer;
  /** The CPU's wasm exports: `set_jit_config(0, 1)` stops the JIT compiling (v86 uses it for its `disable_jit` option). */
  v86?: { cpu: { wm: { exports: { set_jit_config(index: number, value: number): void } } } };
}

/** v86's JIT setting 0: JIT_DISABLED. */
const JIT_DISABLED = 0;

let emulator: V86 | null = null;
let governor: JitGovernor | null = null;
let governing: ReturnType<typeof setInterval> | undefined;
let turnedOn = 0;
let ready: Promise<void> = Promise.reject(new Error("the machine has not started"));
ready.catch(() => undefined);

function running(): V86 {
  if (!emulator) throw new Error("the machine has not started");
  return emulator;
}

function share(): ShareFs {
  const fs = (running() as unknown as V86Internals).fs9p;
  if (!fs) throw new Error("the emulator has no 9p filesystem");
  return fs;
}

export const machineApi = {
  /** Starts v86: boots the files or restores the state. Resolves once it is created, not booted. */
  start(options: MachineStart): void {
    if (emulator) throw new Error("the machine already runs");
    const { port } = options;
    const post = (message: MachineMessage) => port.postMessage(message);
    const wasm = options.wasm;
    const created = new V86({
      ...machineOptions(options.files, options.relayUrl ? { relayUrl: options.relayUrl } : {}),
      ...(options.state ? { initial_state: { buffer: options.state } } : {}),
      wasm_fn: async (imports) => (await WebAssembly.instantiate(wasm, imports)).instance.exports,
    });
    // Only a restore may meet a zstd state, which v86 unpacks in a worker of its own; it gives
    // that worker this buffer (transfers it), so it gets a copy. A cold boot needs none.
    if (options.state) (created as unknown as V86Internals).wasm_source = wasm.slice(0);
    emulator = created;
    ready = new Promise<void>((resolve) =>
      created.add_listener("emulator-ready", () => {
        governJit(created, !options.state);
        resolve();
      }),
    );

    const serial = batchPerTask<number>((bytes) => post({ kind: "serial", bytes: Uint8Array.from(bytes) }));
    created.add_listener("serial0-output-byte", serial);
    const nic = connectV86Link((created as unknown as V86Internals).bus);
    // With v86's own backend the NIC's frames are v86's business, not the page's.
    if (!options.relayUrl) nic.onFrame(batchPerTask<Uint8Array>((frames) => post({ kind: "frames", frames })));
    port.onmessage = (event: MessageEvent<MachineMessage>) => {
      const message = event.data;
      if (message.kind === "type") created.serial0_send(message.text);
      else if (message.kind === "frames") for (const frame of message.frames) nic.send(frame);
    };
  },

  /** Resolves when v86 runs (a restored state is running; a booted one still has to boot). */
  ready(): Promise<void> {
    return ready;
  },

  async saveState(): Promise<ArrayBuffer> {
    const state = await running().save_state();
    return Comlink.transfer(state, [state]);
  },

  /** Writes a file into the share the guest mounts at /mnt/tab, its folders first. */
  writeFile(path: string, bytes: Uint8Array): Promise<void> {
    const machine = running();
    return writeIntoShare(share(), (p, b) => machine.create_file(p, b), path, bytes);
  },

  /** Whether the share holds `path` (the guest deletes files it consumed, e.g. `fresh`). */
  hasFile(path: string): boolean {
    return share().SearchPath(sharePath(path)).id >= 0;
  },

  /** Whether v86's JIT compiles now, and how often it was turned on (jit-governor.ts). */
  jit(): JitState {
    return { enabled: governor?.enabled ?? false, turnedOn };
  },

  /** v86's count of instructions the guest executed (32 bits, wraps); idle time (HLT) adds none. */
  instructions(): number {
    return running().get_instruction_counter();
  },

  async destroy(): Promise<void> {
    const machine = emulator;
    emulator = null;
    clearInterval(governing);
    if (machine) await machine.destroy();
    self.close();
  },
};

export type MachineApi = typeof machineApi;

/**
 * Lets the JIT compile only under sustained load (jit-governor.ts): on from the start for a
 * boot, which is seconds of work; off for a restored guest, which waits at a prompt.
 */
function governJit(machine: V86, boot: boolean): void {
  const cpu = (machine as unknown as V86Internals).v86?.cpu;
  if (!cpu) return; // another v86 than the one pinned: leave its JIT as it is
  // Safe to flip at run time: in v86's jit.rs the switch gates only the hotness count that
  // starts a compile. Code compiled while it was on keeps running, and a guest write to its
  // pages still invalidates it (the dirty-page tracking does not look at the switch), so
  // nothing stale can run. Kept, that code spares V8 compiling it again at the next "on".
  const apply = (on: boolean) => cpu.wm.exports.set_jit_config(JIT_DISABLED, on ? 0 : 1);
  governor = createJitGovernor(undefined, boot);
  apply(governor.enabled);
  let last = machine.get_instruction_counter();
  governing = setInterval(() => {
    const now = machine.get_instruction_counter();
    const change = governor?.observe((now - last) >>> 0);
    last = now;
    if (change === "enable") turnedOn++;
    if (change) apply(change === "enable");
  }, JIT_WINDOW_MS);
}

Comlink.expose(machineApi);

import * as Comlink from "comlink";
import { V86 } from "v86";
import wasmUrl from "v86/build/v86.wasm?url";
import {
  attachGuestControl,
  type BootFiles,
  freshen,
  type GuestCheck,
  type GuestCheckResult,
  type GuestControl,
  type MachineChoice,
  machineOptions,
  rawState,
  runGuestCheck,
  type ShareFs,
  winsizeRequest,
  writeIntoShare,
} from "../../machine";
import { connectV86Link, type V86Bus } from "../../net";
import { messageOf, systemTimers } from "../../platform";
import type { JitState } from "./jit-governor";
import { type JitWatch, watchJit } from "./jit-watch";
import { type EmulatorWasmMessage, MACHINE_EXPECTS, MACHINE_WASM, type MachinePhase, type MachineTimes } from "./machine-phases";
import { batchPerTask, type MachineMessage } from "./machine-port";
import { prepareMachine, restoreInto } from "./prepared-machine";

/**
 * The emulator in a worker of its own. v86 runs the guest in slices on the thread it lives on;
 * on the page's main thread every slice delayed the page's own work for the guest, its proxy,
 * its TLS terminator and above all its `fetch()`, which the browser sent only between slices
 * (docs/performance.md, "Where the time went"). Here the guest computes on its own thread and
 * the page answers it at once. The page keeps everything else: the downloads and their
 * checks, the network peer, the proxy, TLS, the terminal. The worker also decides when v86's
 * JIT may compile (jit-governor.ts).
 *
 * It starts before the page knows what it will run (index.html starts it, early-state-download.ts,
 * and sends it v86's wasm compiled; started by the page, it fetches its own), and when its
 * address says a restore is expected (`expect=restore`) it makes the machine while the state
 * downloads, so that restoring is only unpacking the state (prepared-machine.ts;
 * docs/performance.md, "A first visit on localhost"). Once restored, it asks for the guest's
 * fresh prompt itself (freshPrompt).
 */

export interface MachineStart {
  /** The verified guest files to boot, or null when restoring `state`. */
  files: BootFiles | null;
  /** A saved state (raw or zstd) to restore instead of booting. */
  state?: ArrayBuffer;
  /** v86's own network backend ("fetch", for bench/https and bench/wire) instead of the page's peer. */
  relayUrl?: string;
  /** The port the frames, the serial output and the typed text go over (machine-port.ts). */
  port: MessagePort;
  /**
   * A restore only: the terminal's size. Once the state is restored the worker itself gives the
   * guest its first prompt (freshPrompt), with no round trip to the page in between.
   */
  terminal?: TerminalSize;
}

export interface TerminalSize {
  rows: number;
  cols: number;
}

interface V86Internals {
  bus: V86Bus;
  fs9p?: ShareFs;
}

let emulator: V86 | null = null;
/** The guest's control line (src/machine/guest-control.ts), on the machine's second serial port. */
let control: GuestControl | null = null;
/**
 * How long a request on the control line waits for the guest's answer. The guest answers in well
 * under a second; without one (a guest without tab-control) a restored guest's first prompt
 * still comes, and the page says the guest is not fresh.
 */
const CONTROL_ANSWER_MS = 15_000;
let jit: JitWatch | null = null;
/** The page paused the machine (pause/resume). */
let paused = false;
let ready: Promise<void> = Promise.reject(new Error("the machine has not started"));
ready.catch(() => undefined);
/** A restore's first prompt (freshPrompt): null once the guest took its fresh seed, else why not. */
let freshened: Promise<string | null> = Promise.reject(new Error("the machine restores no state"));
freshened.catch(() => undefined);

const times: MachineTimes = {};
/** When each phase ended, on the clock every thread of the page shares (performance.timeOrigin + now). */
function reached(phase: MachinePhase): void {
  times[phase] = performance.timeOrigin + performance.now();
}
reached("worker-started");

const address = new URL(self.location.href).searchParams;

/**
 * v86's wasm, compiled as it downloads (one compile for the machine, whichever way it starts):
 * by index.html's first script, which sends it here, or by this worker.
 */
const wasmModule = address.get(MACHINE_WASM) === "posted" ? postedWasm() : compileEmulatorWasm();
wasmModule.then(
  () => reached("wasm-compiled"),
  () => undefined,
);

/** The module index.html's first script sends (Comlink ignores the message: it has no `type`). */
function postedWasm(): Promise<WebAssembly.Module> {
  return new Promise((resolve) => {
    const take = (event: MessageEvent<EmulatorWasmMessage | null>) => {
      if (event.data?.kind !== "emulator-wasm") return;
      self.removeEventListener("message", take);
      resolve(event.data.module instanceof WebAssembly.Module ? event.data.module : compileEmulatorWasm());
    };
    self.addEventListener("message", take);
  });
}

async function compileEmulatorWasm(): Promise<WebAssembly.Module> {
  const url = new URL(wasmUrl, self.location.href);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the emulator's wasm did not load: HTTP ${response.status}`);
  // compileStreaming wants the server's `application/wasm`; a host that says otherwise still works.
  if (response.headers.get("Content-Type")?.startsWith("application/wasm")) return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

const wasmFn = async (imports: WebAssembly.Imports) => (await WebAssembly.instantiate(await wasmModule, imports)).exports;

/** A machine for a saved state (prepared-machine.ts), made while the state downloads. */
async function prepare(choice: MachineChoice): Promise<V86> {
  const machine = await prepareMachine(wasmModule, choice);
  reached("machine-prepared");
  return machine;
}

let prepared: Promise<V86> | null = address.get(MACHINE_EXPECTS) === "restore" ? prepare({}) : null;
prepared?.catch(() => undefined);

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
  /**
   * Starts v86: boots the files, or restores the state into the prepared machine. Resolves once
   * the machine exists and is wired to the port, not booted or restored (`ready()` says when).
   */
  async start(options: MachineStart): Promise<void> {
    if (emulator) throw new Error("the machine already runs");
    const restoring = options.state !== undefined;
    // A machine prepared for a restore serves only a restore on the page's own network.
    const preparedUse = restoring && !options.relayUrl ? prepared : null;
    if (prepared && !preparedUse) void prepared.then((unused) => unused.destroy()).catch(() => undefined);
    prepared = null;
    const created = restoring
      ? await (preparedUse ?? prepare(options.relayUrl ? { relayUrl: options.relayUrl } : {}))
      : new V86({ ...machineOptions(options.files, options.relayUrl ? { relayUrl: options.relayUrl } : {}), wasm_fn: wasmFn });
    emulator = created;
    const { port } = options;
    const post = (message: MachineMessage) => port.postMessage(message);
    const serial = batchPerTask<number>((bytes) => post({ kind: "serial", bytes: Uint8Array.from(bytes) }));
    created.add_listener("serial0-output-byte", serial);
    control = attachGuestControl(created, { timers: systemTimers, answerWithinMs: CONTROL_ANSWER_MS });
    control.onAuditRecord((type, text) => post({ kind: "audit", type, text }));
    const nic = connectV86Link((created as unknown as V86Internals).bus);
    // With v86's own backend the NIC's frames are v86's business, not the page's.
    if (!options.relayUrl) nic.onFrame(batchPerTask<Uint8Array>((frames) => post({ kind: "frames", frames })));
    port.onmessage = (event: MessageEvent<MachineMessage>) => {
      const message = event.data;
      if (message.kind === "type") created.serial0_send(message.text);
      else if (message.kind === "frames") for (const frame of message.frames) nic.send(frame);
    };
    const state = options.state;
    ready = state
      ? restore(created, state)
      : new Promise<void>((resolve) =>
          created.add_listener("emulator-ready", () => {
            jit = watchJit(created, true);
            resolve();
          }),
        );
    ready.catch(() => undefined);
    if (state && options.terminal) {
      const size = options.terminal;
      freshened = ready.then(() => freshPrompt(size));
      freshened.catch(() => undefined);
    }
  },

  /**
   * A restored guest's first prompt, which the worker asks for itself once the state is
   * restored (freshPrompt, below): null once the guest took its fresh clock and seed, else why
   * it did not.
   */
  freshPrompt(): Promise<string | null> {
    return freshened;
  },

  /** Tells the guest its terminal's size (the console's TIOCSWINSZ: SIGWINCH at once). */
  async resize(size: TerminalSize): Promise<void> {
    // Not into a machine still restoring: the restore would drop the request's bytes.
    await ready;
    await controlLine().request(winsizeRequest(size.rows, size.cols));
  },

  /** Runs a lesson's check out of band on the control line (src/machine's runGuestCheck): never on the console. */
  async runCheck(check: GuestCheck): Promise<GuestCheckResult> {
    await ready;
    return runGuestCheck(controlLine(), check);
  },

  /** When the worker reached each phase (machine-phases.ts), for the page's boot timeline. */
  times(): MachineTimes {
    return times;
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

  /** Whether v86's JIT compiles now, and how often it was turned on (jit-governor.ts). */
  jit(): JitState {
    return jit?.state() ?? { enabled: false, turnedOn: 0 };
  },

  /**
   * Stops the guest's CPU where it is (v86's stop): nothing runs in this worker until `resume`.
   * The page pauses a machine nobody sees (machine-visibility.ts). Resolves once stopped.
   */
  async pause(): Promise<void> {
    const machine = running();
    await ready;
    if (paused) return;
    paused = true;
    jit?.stop();
    await machine.stop();
  },

  /**
   * Runs a paused guest again and gives it this machine's clock (and a fresh seed) on its
   * control line, as after a restore (docs/decisions/0025): its clock had stood still while
   * paused. Resolves with null once the guest took it, else with why not.
   */
  async resume(): Promise<string | null> {
    const machine = running();
    if (!paused) return null;
    paused = false;
    await machine.run();
    jit?.start();
    return freshen(controlLine()).then(
      () => null,
      (error: unknown) => messageOf(error),
    );
  },

  /** Whether the guest's CPU is stopped (pause) or no machine runs yet. */
  paused(): boolean {
    return emulator === null || paused;
  },

  /** v86's count of instructions the guest executed (32 bits, wraps); idle time (HLT) adds none. */
  instructions(): number {
    return running().get_instruction_counter();
  },

  async destroy(): Promise<void> {
    const machine = emulator;
    emulator = null;
    control?.close("the machine stopped");
    control = null;
    jit?.stop();
    if (machine) await machine.destroy();
    self.close();
  },
};

export type MachineApi = typeof machineApi;

/**
 * A restored guest's way to its first prompt, here so that no round trip to the page sits
 * between its steps: tells the guest the terminal's size and gives it this machine's clock and
 * a fresh seed (src/machine/fresh-guest.ts) on its control line, then sends the Enter that ends
 * the held shell's wait and draws the first prompt, so no command runs before the seed.
 */
async function freshPrompt(size: TerminalSize): Promise<string | null> {
  const line = controlLine();
  // Not awaited: the guest applies requests in order, so `fresh`'s answer comes after it; a
  // refusal leaves the console 80×24.
  line.request(winsizeRequest(size.rows, size.cols)).catch(() => undefined);
  const notFresh = await freshen(line).then(
    () => null,
    (error: unknown) => messageOf(error),
  );
  running().serial0_send("\r");
  reached("fresh-prompt-asked");
  return notFresh;
}

function controlLine(): GuestControl {
  if (!control) throw new Error("the machine has not started");
  return control;
}

/** Restores `state` (raw or zstd, decompressed here: src/machine/raw-state.ts) into the prepared machine and runs it. */
async function restore(machine: V86, state: ArrayBuffer): Promise<void> {
  reached("restore-started");
  const raw = rawState(state);
  try {
    await restoreInto(machine, raw);
  } finally {
    // Restored, the state is in the machine's memory: its buffers (~15 MB for the shipped one)
    // are given back now rather than at this worker's next garbage collection, which an idle
    // worker may not run for a long time.
    release(state);
    release(raw);
  }
  jit = watchJit(machine, false);
  await machine.run();
  reached("restored");
}

/** Frees a buffer's memory at once by detaching it (`ArrayBuffer.prototype.transfer`, where the browser has it). */
function release(buffer: ArrayBuffer): void {
  if (buffer.byteLength > 0) (buffer as { transfer?: (length: number) => ArrayBuffer }).transfer?.(0);
}

Comlink.expose(machineApi);

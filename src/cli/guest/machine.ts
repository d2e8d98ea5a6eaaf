import { createRequire } from "node:module";
import { V86 } from "v86";
import { GuestConsole } from "../../console";
import {
  attachGuestControl,
  type BootFiles,
  type GuestControl,
  machineOptions,
  rawState,
  type ShareFs,
  writeIntoShare,
} from "../../machine";
import { connectV86Link, type FrameLink, type V86Bus } from "../../net";
import { nodeTimers } from "../node-timers";

/**
 * v86 under Node, on exactly the page's machine (src/machine): the same options, the same
 * NIC on the bus, the same 9p share, the serial console into the same GuestConsole, the same
 * control line on the second serial port (src/machine/guest-control.ts). It runs on
 * this thread: the proxy and the TLS terminator answer between the emulator's slices, which is
 * what the page's worker split buys in a browser, and costs only time here.
 */
export interface NodeMachine {
  link: FrameLink;
  console: GuestConsole;
  /** Resolves when v86 runs (a restored state) or the shell shows its first prompt (a boot). */
  ready: Promise<void>;
  /** The guest's control line: its terminal's size, a restored guest's fresh clock and seed. */
  control: GuestControl;
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  destroy(): Promise<void>;
}

interface V86Internals {
  bus: V86Bus;
  fs9p?: ShareFs;
}

/** How long the guest's control line waits for an answer: an emulated guest on a busy machine is slow. */
const CONTROL_ANSWER_MS = 180_000;

const require = createRequire(import.meta.url);
/** v86's wasm, beside its package's build. */
export const V86_WASM = require.resolve("v86/build/v86.wasm");

export function startNodeMachine(start: { files: BootFiles } | { state: ArrayBuffer }): NodeMachine {
  const restoring = "state" in start;
  let emulator: V86 | null = null;
  const guestConsole = new GuestConsole((text) => emulator?.serial0_send(text));
  emulator = new V86({
    ...machineOptions(restoring ? null : start.files),
    // Decompressed outside the machine's memory, as the page does (src/machine/raw-state.ts).
    ...(restoring ? { initial_state: { buffer: rawState(start.state) } } : {}),
    // v86 reads the wasm itself.
    wasm_path: V86_WASM,
  });
  const running = emulator;
  running.add_listener("serial0-output-byte", (byte: number) => guestConsole.receive(Uint8Array.of(byte)));
  const control = attachGuestControl(running, { timers: nodeTimers, answerWithinMs: CONTROL_ANSWER_MS });
  const internals = running as unknown as V86Internals;
  const link = connectV86Link(internals.bus);
  const share = (): ShareFs => {
    if (!internals.fs9p) throw new Error("the emulator has no 9p filesystem");
    return internals.fs9p;
  };
  const started = new Promise<void>((resolve) => running.add_listener("emulator-ready", () => resolve()));
  return {
    link,
    console: guestConsole,
    ready: restoring ? started : started.then(() => guestConsole.firstPrompt),
    control,
    writeFile: (path, bytes) => writeIntoShare(share(), (p, b) => running.create_file(p, b), path, bytes),
    async destroy() {
      emulator = null;
      control.close("the machine stopped");
      await running.destroy();
    },
  };
}

/**
 * What the emulator's worker reports about its own start (machine-worker.ts), for the page's
 * boot timeline (boot.ts marks them with the Performance API beside the page's own phases).
 */
export type MachinePhase = "worker-started" | "wasm-compiled" | "machine-prepared" | "restore-started" | "restored" | "fresh-prompt-asked";

/** When each phase ended, in ms on the shared clock (`performance.timeOrigin + performance.now()`). */
export type MachineTimes = Partial<Record<MachinePhase, number>>;

/** The worker's address parameter that says what the page expects to run: `restore` prepares a machine for a state. */
export const MACHINE_EXPECTS = "expect";

/** The worker's address parameter that says v86's wasm comes by message (`posted`) instead of its own fetch. */
export const MACHINE_WASM = "wasm";

/** v86's wasm, compiled by index.html's first script, for the worker; null: the worker fetches its own. */
export interface EmulatorWasmMessage {
  kind: "emulator-wasm";
  module: WebAssembly.Module | null;
}

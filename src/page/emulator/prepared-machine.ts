import { V86 } from "v86";
import { type MachineChoice, machineOptions } from "../../machine";

/**
 * A machine made before its saved state is in, so that restoring it is only unpacking the
 * state (machine-worker.ts makes one while the state downloads; docs/performance.md, "A first
 * visit on localhost").
 *
 * v86 unpacks a state by zeroing all of guest memory (96 MiB) and then writing the state's
 * non-zero pages. On fresh wasm memory that zeroing is the first touch of every page: a page
 * fault per 4 KiB, most of a restore's time on the test machine. It is not needed: memory a
 * wasm module grows is zero (the WebAssembly spec), and a machine made without files (no BIOS,
 * no kernel: a state brings all of it) writes nothing into guest memory before the state. So
 * the machine notes where v86's allocator put guest memory: what lies above the memory's end
 * before that allocation was grown for it; what lies below (the allocator's free space, which
 * may hold old data) is zeroed here. The restore then skips v86's zeroing of all of it.
 */

/** The parts of v86's internals used here (the pinned v86; another leaves the machine as v86 makes it). */
interface CpuInternals {
  memory_size: Int32Array | Uint32Array;
  zero_memory(address: number, size: number): void;
}

const machineCpu = (machine: V86): CpuInternals | undefined => (machine as unknown as { v86?: { cpu?: CpuInternals } }).v86?.cpu;

/** Machines whose guest memory is known to be all zero, until a state is restored into them. */
const zeroed = new WeakSet<V86>();

/**
 * Makes a machine with no files, not running, for `restoreInto`. `module` is v86's compiled
 * wasm. Resolves once v86 has made the machine (and its guest memory is known to be zero).
 */
export async function prepareMachine(module: WebAssembly.Module | Promise<WebAssembly.Module>, choice: MachineChoice = {}): Promise<V86> {
  // Bytes at the start of guest memory the allocator took from memory that was there before (null: not seen).
  let reused: number | null = null;
  const wasm_fn = async (imports: WebAssembly.Imports) => {
    const { exports } = await WebAssembly.instantiate(await module, imports);
    const memory = exports.memory;
    const allocate = exports.allocate_memory;
    if (!(memory instanceof WebAssembly.Memory) || typeof allocate !== "function") return exports;
    return {
      ...exports,
      allocate_memory(size: number): number {
        const end = memory.buffer.byteLength;
        const at = (allocate as (size: number) => number)(size);
        reused = Math.min(size, Math.max(0, end - at));
        return at;
      },
    };
  };
  const machine = new V86({ ...machineOptions(null, choice), autostart: false, wasm_fn });
  await new Promise<void>((resolve) => machine.add_listener("emulator-loaded", () => resolve()));
  const cpu = machineCpu(machine);
  if (cpu && reused !== null) {
    if (reused > 0) cpu.zero_memory(0, reused);
    zeroed.add(machine);
  }
  return machine;
}

/** Restores `state` (raw, or zstd, which v86 would decompress into the machine's own memory: the worker passes it raw) into a machine from `prepareMachine`; does not run it. */
export async function restoreInto(machine: V86, state: ArrayBuffer): Promise<void> {
  const cpu = machineCpu(machine);
  const zeroMemory = cpu?.zero_memory;
  if (cpu && zeroMemory && zeroed.has(machine)) {
    const all = cpu.memory_size[0];
    // The one call that zeroes all of guest memory is v86's unpacking of the state's pages.
    cpu.zero_memory = (address, size) => {
      if (address !== 0 || size !== all) zeroMemory.call(cpu, address, size);
    };
  }
  zeroed.delete(machine);
  try {
    await machine.restore_state(state);
  } finally {
    if (cpu && zeroMemory) cpu.zero_memory = zeroMemory;
  }
}

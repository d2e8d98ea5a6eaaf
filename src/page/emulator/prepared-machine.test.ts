import { readFileSync } from "node:fs";
import { V86 } from "v86";
import { afterAll, describe, expect, it } from "vitest";
import { machineOptions } from "../../machine";
import { prepareMachine, restoreInto } from "./prepared-machine";

// v86 under Node, with the shipped state (vendor/guest): the restore the page's worker does
// against the one v86 does itself from `initial_state`.
const wasm = new WebAssembly.Module(readFileSync("node_modules/v86/build/v86.wasm"));
const shipped = readFileSync("vendor/guest/state.bin.zst");
const state = () => shipped.buffer.slice(shipped.byteOffset, shipped.byteOffset + shipped.byteLength) as ArrayBuffer;

interface CpuView {
  wasm_memory: WebAssembly.Memory;
  mem8: { byteOffset: number };
  memory_size: Int32Array;
  zero_memory(address: number, size: number): void;
}
const cpuOf = (machine: V86) => (machine as unknown as { v86: { cpu: CpuView } }).v86.cpu;
const guestMemory = (machine: V86): Uint8Array => {
  const cpu = cpuOf(machine);
  return new Uint8Array(cpu.wasm_memory.buffer, cpu.mem8.byteOffset, cpu.memory_size[0]);
};

const machines: V86[] = [];
afterAll(async () => {
  for (const machine of machines) await machine.destroy();
});

describe("a machine prepared for a saved state", () => {
  it("holds, once the state is restored into it, the same guest memory as v86's own restore of that state", async () => {
    const own = new V86({
      ...machineOptions(null),
      autostart: false,
      wasm_fn: async (imports) => (await WebAssembly.instantiate(wasm, imports)).exports,
      initial_state: { buffer: state() },
    });
    machines.push(own);
    await new Promise<void>((resolve) => own.add_listener("emulator-loaded", () => resolve()));

    const prepared = await prepareMachine(wasm);
    machines.push(prepared);
    // All zero before the state, though v86 does not zero it again.
    expect(guestMemory(prepared).every((byte) => byte === 0)).toBe(true);
    const zeroMemory = cpuOf(prepared).zero_memory;
    await restoreInto(prepared, state());

    expect(Buffer.from(guestMemory(prepared)).equals(Buffer.from(guestMemory(own)))).toBe(true);
    // v86's zeroing is its own again once the state is in.
    expect(cpuOf(prepared).zero_memory).toBe(zeroMemory);
  }, 60_000);

  it("refuses a state that is not one, and keeps v86's zeroing", async () => {
    const prepared = await prepareMachine(wasm);
    machines.push(prepared);
    const zeroMemory = cpuOf(prepared).zero_memory;
    await expect(restoreInto(prepared, new TextEncoder().encode("not a state at all").buffer)).rejects.toThrow();
    expect(cpuOf(prepared).zero_memory).toBe(zeroMemory);
  }, 60_000);
});

import { describe, expect, it } from "vitest";
import { StateRecord, shippedStateMismatch } from "./image-files";
import { machineRecord } from "./machine";

const image = { bzImage: "aa", "initramfs.cpio.zst": "bb", "seabios.bin": "cc", "vgabios.bin": "dd" };
const sums = new Map(Object.entries({ ...image, "state.bin.zst": "ee", "state.json": "ff" }));
const record = StateRecord.parse({ file: "state.bin.zst", bytes: 10, raw_bytes: 20, image, machine: machineRecord() });

describe("which shipped state a first visit restores", () => {
  it("restores a state made from the files SHA256SUMS lists, on the page's machine", () => {
    expect(shippedStateMismatch(record, sums)).toBeNull();
  });

  it("refuses a state made from another kernel or initramfs than SHA256SUMS lists", () => {
    const other = { ...record, image: { ...image, bzImage: "00" } };
    expect(shippedStateMismatch(other, sums)).toMatch(/another bzImage/);
  });

  it("refuses a state saved on another machine (e.g. more memory)", () => {
    const other = { ...record, machine: { ...machineRecord(), memory_size: 128 * 1024 * 1024 } };
    expect(shippedStateMismatch(other, sums)).toMatch(/another machine/);
  });
});

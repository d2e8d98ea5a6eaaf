import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isZstd, rawState } from "./raw-state";

const shipped = readFileSync("vendor/guest/state.bin.zst");
const record = JSON.parse(readFileSync("vendor/guest/state.json", "utf8")) as { raw_bytes: number };
const bytes = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

describe("a saved state as v86 restores it", () => {
  it("is the shipped zstd state decompressed, as long as its record says, in v86's state format", () => {
    const raw = rawState(bytes(shipped));
    expect(raw.byteLength).toBe(record.raw_bytes);
    // v86's state header: magic 0x86768676, little-endian.
    expect(new DataView(raw).getUint32(0, true)).toBe(0x86768676);
    expect(isZstd(raw)).toBe(false);
  });

  it("is an uncompressed state as it is, the same buffer", () => {
    const plain = new Uint8Array([0x76, 0x86, 0x76, 0x86, 1, 2, 3]).buffer;
    expect(rawState(plain)).toBe(plain);
    expect(rawState(new ArrayBuffer(0))).toEqual(new ArrayBuffer(0));
  });

  it("refuses a cut zstd state with an error that says so, not a crash", () => {
    const cut = bytes(shipped.subarray(0, 100_000));
    expect(() => rawState(cut)).toThrow(/the saved state does not decompress \(zstd\)/);
  });
});

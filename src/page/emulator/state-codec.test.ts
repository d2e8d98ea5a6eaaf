import { describe, expect, it } from "vitest";
import { packState, unpackState } from "./state-codec";

function stateLike(size: number): ArrayBuffer {
  // Mostly zero pages with some noise, as a guest's memory is.
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 4096) bytes.set(crypto.getRandomValues(new Uint8Array(256)), i);
  return bytes.buffer;
}

describe("a saved guest state is kept compressed and restored byte for byte", () => {
  it("packing then unpacking gives back the exact state", async () => {
    const state = stateLike(1 << 20);
    const packed = await packState(state);
    // Compared as Buffers: an element-wise deep equality of a megabyte takes seconds.
    expect(Buffer.from(await unpackState(packed)).equals(Buffer.from(state))).toBe(true);
  });

  it("a state of mostly zero pages is kept in a fraction of its size", async () => {
    const state = stateLike(1 << 20);
    expect((await packState(state)).byteLength).toBeLessThan(state.byteLength / 3);
  });

  it("an uncompressed state saved by an earlier page is restored as it is", async () => {
    const legacy = stateLike(8192);
    expect(await unpackState(legacy)).toBe(legacy);
  });

  it("a damaged compressed entry is an error, not a corrupt guest", async () => {
    const packed = new Uint8Array(await packState(stateLike(65536)));
    packed.fill(0x55, 20, 60);
    await expect(unpackState(packed.buffer)).rejects.toThrow();
  });
});

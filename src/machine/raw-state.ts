import { decompress } from "fzstd";
import { messageOf } from "../platform";

/** zstd's frame magic, little-endian as it starts a file (RFC 8878, 3.1.1). */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/** Whether `state` is zstd-compressed (the shipped state, vendor/guest/state.bin.zst). */
export function isZstd(state: ArrayBuffer): boolean {
  const head = new Uint8Array(state, 0, Math.min(4, state.byteLength));
  return ZSTD_MAGIC.every((b, i) => head[i] === b);
}

/**
 * A saved state as v86 restores it uncompressed: a zstd state decompressed here, any other
 * as it is.
 *
 * v86 can restore zstd itself, but it decompresses inside the machine's own WebAssembly
 * memory: the compressed copy and the decoder's window (~14 MB for the shipped state) are
 * written into pages that wasm memory never gives back, so every machine kept them for its
 * whole life. Decompressed here, they are ordinary garbage once restored (~15 MB less per
 * machine: docs/performance.md, "Idle"). Throws, naming the fault, when the bytes are not a
 * whole zstd frame.
 */
export function rawState(state: ArrayBuffer): ArrayBuffer {
  if (!isZstd(state)) return state;
  let raw: Uint8Array;
  try {
    raw = decompress(new Uint8Array(state));
  } catch (error) {
    throw new Error(`the saved state does not decompress (zstd): ${messageOf(error)}`);
  }
  return raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? (raw.buffer as ArrayBuffer) : raw.slice().buffer;
}

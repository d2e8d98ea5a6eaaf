/** Thrown by ByteReader when the input ends early: parsers turn it into a coded refusal. */
export class TruncatedError extends Error {
  constructor(what: string) {
    super(`truncated: ${what}`);
    this.name = "TruncatedError";
  }
}

/** A bounds-checked reader over bytes; every read past the end throws TruncatedError. */
export class ByteReader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(n: number, what: string): void {
    if (this.offset + n > this.bytes.length) throw new TruncatedError(what);
  }

  u8(what = "u8"): number {
    this.need(1, what);
    return this.bytes[this.offset++]!;
  }

  u16(what = "u16"): number {
    this.need(2, what);
    const v = (this.bytes[this.offset]! << 8) | this.bytes[this.offset + 1]!;
    this.offset += 2;
    return v;
  }

  u24(what = "u24"): number {
    this.need(3, what);
    const v = (this.bytes[this.offset]! << 16) | (this.bytes[this.offset + 1]! << 8) | this.bytes[this.offset + 2]!;
    this.offset += 3;
    return v;
  }

  u32(what = "u32"): number {
    this.need(4, what);
    const b = this.bytes;
    const o = this.offset;
    this.offset += 4;
    return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
  }

  take(n: number, what = "bytes"): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** A sub-reader over the next `width`-byte-length-prefixed part. */
  prefixed(width: 1 | 2 | 3, what = "vector"): ByteReader {
    const n = width === 1 ? this.u8(what) : width === 2 ? this.u16(what) : this.u24(what);
    return new ByteReader(this.take(n, what));
  }
}

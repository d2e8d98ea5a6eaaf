/**
 * A growing byte writer whose length prefixes are filled in afterwards (as subtls's
 * `writeLengthUint16()` returns an `end()`), so nested TLS and DNS structures cannot get
 * their lengths wrong by hand.
 */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.length++] = v & 0xff;
    return this;
  }

  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.length, v);
    this.length += 2;
    return this;
  }

  u24(v: number): this {
    this.ensure(3);
    this.buf[this.length] = (v >>> 16) & 0xff;
    this.buf[this.length + 1] = (v >>> 8) & 0xff;
    this.buf[this.length + 2] = v & 0xff;
    this.length += 3;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.length, v >>> 0);
    this.length += 4;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  /**
   * Reserves a length prefix of `width` bytes; call the returned `end()` after writing the
   * nested part and the prefix is patched with its size. Throws if the part is too long.
   */
  lengthPrefix(width: 1 | 2 | 3 | 4): () => void {
    this.ensure(width);
    const at = this.length;
    this.length += width;
    return () => {
      const size = this.length - at - width;
      if (size >= 2 ** (8 * width)) throw new RangeError(`nested part of ${size} bytes exceeds a ${width}-byte length`);
      for (let i = width - 1, s = size; i >= 0; i--, s = Math.floor(s / 256)) this.buf[at + i] = s & 0xff;
    };
  }

  /** A copy of what has been written. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

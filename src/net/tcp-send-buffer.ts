/**
 * Bytes the page wrote that the guest has not acknowledged yet, from SND.UNA on: a list of
 * chunks, never concatenated. Segments are copied straight from here into outgoing frames.
 */
export class SendBuffer {
  private chunks: Uint8Array[] = [];
  /** Offset of SND.UNA's byte inside chunks[0]. */
  private head = 0;
  length = 0;

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** Forgets the first `count` bytes (they were acknowledged). */
  drop(count: number): void {
    let left = Math.min(count, this.length);
    this.length -= left;
    while (left > 0) {
      const first = this.chunks[0]!;
      const available = first.length - this.head;
      if (left < available) {
        this.head += left;
        return;
      }
      left -= available;
      this.chunks.shift();
      this.head = 0;
    }
  }

  /** Copies bytes [offset, offset+count) of the buffer into `out` at `outOffset`. */
  copyTo(offset: number, count: number, out: Uint8Array, outOffset: number): void {
    let skip = offset + this.head;
    let at = outOffset;
    let left = count;
    for (const chunk of this.chunks) {
      if (left === 0) return;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      const take = Math.min(left, chunk.length - skip);
      out.set(chunk.subarray(skip, skip + take), at);
      at += take;
      left -= take;
      skip = 0;
    }
    if (left > 0) throw new RangeError(`send buffer holds ${this.length} bytes, asked for ${offset}+${count}`);
  }
}

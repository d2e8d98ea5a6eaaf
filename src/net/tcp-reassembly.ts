import { seqDiff } from "./tcp-sequence";

export interface HeldSegment {
  seq: number;
  data: Uint8Array;
  fin: boolean;
}

/**
 * Out-of-order segments from the guest, held (bounded in bytes and count) until the hole
 * before them fills. Views into the received frames are kept, never copies.
 */
export class ReorderBuffer {
  private held: HeldSegment[] = [];
  private bytes = 0;

  constructor(
    private readonly byteLimit: number,
    private readonly countLimit = 128,
  ) {}

  get size(): number {
    return this.held.length;
  }

  /** Holds a segment that starts after RCV.NXT; false when it was dropped (out of window or no room). */
  hold(segment: HeldSegment, rightEdge: number): boolean {
    const beyond = seqDiff(segment.seq, rightEdge) >= 0 && segment.data.length > 0;
    if (beyond || this.bytes + segment.data.length > this.byteLimit || this.held.length >= this.countLimit) return false;
    let i = this.held.length;
    while (i > 0 && seqDiff(this.held[i - 1]!.seq, segment.seq) > 0) i--;
    const previous = this.held[i - 1];
    if (previous && previous.seq === segment.seq && previous.data.length >= segment.data.length) return true; // already held
    this.held.splice(i, 0, segment);
    this.bytes += segment.data.length;
    return true;
  }

  /** The next held segment that starts at or before `rcvNxt`, trimmed to start there; null if none. */
  takeNext(rcvNxt: number): HeldSegment | null {
    while (this.held.length > 0) {
      const next = this.held[0]!;
      const offset = seqDiff(rcvNxt, next.seq);
      if (offset < 0) return null;
      this.held.shift();
      this.bytes -= next.data.length;
      if (offset < next.data.length || (offset === next.data.length && next.fin)) {
        return { seq: rcvNxt, data: next.data.subarray(offset), fin: next.fin };
      }
    }
    return null;
  }

  clear(): void {
    this.held = [];
    this.bytes = 0;
  }
}

import type { Timers } from "../platform";
import { seqDiff } from "./tcp-sequence";

/**
 * The retransmission timeout (RFC 6298): smoothed RTT and variance from one timed segment at
 * a time, Karn's rule (no sample from a retransmitted segment), exponential backoff.
 */
export class RtoEstimator {
  value: number;
  private srtt = -1;
  private rttVar = 0;
  private timedSeq: number | null = null;
  private timedAt = 0;

  constructor(
    private readonly timers: Timers,
    initialMs: number,
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {
    this.value = initialMs;
  }

  /** New data went out ending at `endSeq`: time it, unless a segment is already timed. */
  sent(endSeq: number): void {
    if (this.timedSeq !== null) return;
    this.timedSeq = endSeq;
    this.timedAt = this.timers.now();
  }

  /** Something was retransmitted: the timed segment's ACK would be ambiguous. */
  retransmitted(): void {
    this.timedSeq = null;
  }

  /** An ACK up to `ack` arrived: take a sample if it covers the timed segment, and drop any backoff. */
  acked(ack: number): void {
    if (this.timedSeq !== null && seqDiff(ack, this.timedSeq) >= 0) {
      const sample = this.timers.now() - this.timedAt;
      this.timedSeq = null;
      if (this.srtt < 0) {
        this.srtt = sample;
        this.rttVar = sample / 2;
      } else {
        this.rttVar = 0.75 * this.rttVar + 0.25 * Math.abs(this.srtt - sample);
        this.srtt = 0.875 * this.srtt + 0.125 * sample;
      }
    }
    // New data got through: forget the backoff (as Linux does), keep the estimate.
    if (this.srtt >= 0) this.value = Math.min(this.maxMs, Math.max(this.minMs, this.srtt + Math.max(1, 4 * this.rttVar)));
  }

  backoff(): void {
    this.value = Math.min(this.value * 2, this.maxMs);
  }
}

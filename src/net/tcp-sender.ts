import type { TcpHost } from "./tcp-host";
import { RtoEstimator } from "./tcp-rto";
import { TCP_ACK, TCP_FIN, TCP_PSH, TCP_SYN, type TcpHeaderFields, type TcpSegment } from "./tcp-segment";
import { SendBuffer } from "./tcp-send-buffer";
import { seqAdd, seqDiff } from "./tcp-sequence";
import { Deadline } from "./timers";

/** A segment's header as the send side fills it; the connection adds the ports and the window. */
export type OutgoingFields = Omit<TcpHeaderFields, "srcPort" | "dstPort" | "window">;
export type PayloadFill = (out: Uint8Array, offset: number) => void;

/** What the send side needs from its connection. */
export interface SenderLink {
  /** RCV.NXT: the acknowledgement number every segment carries. */
  ackNumber(): number;
  /** Sends one segment; `fill` writes `length` payload bytes into the frame. */
  transmit(fields: OutgoingFields, length: number, fill: PayloadFill | null): void;
  /** Our FIN went out for the first time. */
  finSent(): void;
  /** The retransmission timer fired. */
  retransmitTimeout(): void;
}

/** How an incoming ACK affected the send side. */
export type AckOutcome =
  /** It acknowledges something never sent: answer with an ACK and drop the segment. */
  | "unacceptable"
  | "accepted"
  /** It acknowledged our FIN, just now. */
  | "fin-acked";

/**
 * The send half of a connection (RFC 9293): SND.UNA/SND.NXT and the guest's window,
 * segmentation to the send MSS, the FIN after the data, RTO retransmission with Karn's rule and
 * backoff (RFC 6298), zero-window probes, fast retransmit with NewReno-style partial ACKs, and
 * backpressure to the page's writer. Congestion control is deliberately absent: the wire is a
 * memory copy.
 */
export class TcpSender {
  private readonly iss: number;
  private una: number;
  private nxt: number;
  private window: number;
  private wl1: number;
  private wl2: number;
  private readonly mss: number;
  private readonly buffer = new SendBuffer();
  private finIsQueued = false;
  private finIsSent = false;
  private finIsAcked = false;
  private recovering = false;
  private recover = 0;
  private dupAcks = 0;
  private writeWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly rto: RtoEstimator;
  private retries = 0;
  private readonly retransmitTimer: Deadline;
  bytesOut = 0;

  constructor(
    private readonly host: Pick<TcpHost, "config" | "timers" | "counters">,
    private readonly link: SenderLink,
    syn: TcpSegment,
    iss: number,
  ) {
    const config = host.config;
    this.iss = iss >>> 0;
    this.una = this.iss;
    this.nxt = seqAdd(this.iss, 1);
    this.window = syn.window;
    this.wl1 = syn.seq;
    this.wl2 = this.iss;
    // RFC 9293 §3.7.1: without the option the default send MSS is 536.
    this.mss = Math.max(1, Math.min(syn.mss ?? 536, config.mss));
    this.rto = new RtoEstimator(host.timers, config.initialRtoMs, config.minRtoMs, config.maxRtoMs);
    this.retransmitTimer = new Deadline(host.timers, () => link.retransmitTimeout());
  }

  /** SND.NXT: the sequence number of the next new byte (or FIN). */
  get sndNxt(): number {
    return this.nxt;
  }

  get finQueued(): boolean {
    return this.finIsQueued;
  }

  get finAcked(): boolean {
    return this.finIsAcked;
  }

  sendSynAck(): void {
    this.link.transmit({ seq: this.iss, ack: this.link.ackNumber(), flags: TCP_SYN | TCP_ACK, mss: this.host.config.mss }, 0, null);
    this.retransmitTimer.ensure(this.rto.value);
  }

  /** The guest acknowledged our SYN: the handshake is over. */
  established(ack: number): void {
    this.una = ack;
    this.retries = 0;
    this.retransmitTimer.clear();
    this.rto.acked(ack);
  }

  /** Queues the page's bytes for sending. */
  queue(chunk: Uint8Array): void {
    // One defensive copy: the writer may reuse its buffer once write() resolves.
    this.buffer.push(chunk.slice());
  }

  /** Backpressure for the writer: undefined while the buffer has room, else a promise for when it has. */
  room(): Promise<void> | undefined {
    if (this.buffer.length < this.host.config.sendBuffer) return undefined;
    return new Promise((resolve, reject) => this.writeWaiters.push({ resolve, reject }));
  }

  queueFin(): void {
    this.finIsQueued = true;
  }

  /** Sends what the guest's window allows, then the FIN once all data is out. */
  pump(): void {
    for (;;) {
      const inFlight = seqDiff(this.nxt, this.una) - (this.finIsSent ? 1 : 0);
      const unsent = this.buffer.length - inFlight;
      if (unsent > 0) {
        const usable = this.window - seqDiff(this.nxt, this.una);
        if (usable <= 0) break;
        const length = Math.min(unsent, usable, this.mss);
        this.sendSegment(this.nxt, inFlight, length, false);
        this.nxt = seqAdd(this.nxt, length);
        continue;
      }
      if (this.finIsQueued && !this.finIsSent) this.sendFin();
      break;
    }
    if (this.una !== this.nxt || (this.buffer.length > 0 && this.window === 0)) this.retransmitTimer.ensure(this.rto.value);
  }

  private sendSegment(seq: number, offset: number, length: number, retransmit: boolean, fin = false): void {
    const last = offset + length === this.buffer.length;
    const flags = TCP_ACK | (last && length > 0 ? TCP_PSH : 0) | (fin ? TCP_FIN : 0);
    const fill = length > 0 ? (out: Uint8Array, at: number) => this.buffer.copyTo(offset, length, out, at) : null;
    this.link.transmit({ seq, ack: this.link.ackNumber(), flags }, length, fill);
    if (retransmit) {
      this.host.counters.tcpRetransmits++;
      this.rto.retransmitted();
    } else {
      this.bytesOut += length;
      this.rto.sent(seqAdd(seq, length));
    }
  }

  private sendFin(): void {
    this.sendSegment(this.nxt, this.buffer.length, 0, false, true);
    this.nxt = seqAdd(this.nxt, 1);
    this.finIsSent = true;
    this.link.finSent();
  }

  /** Retransmits one segment from SND.UNA (with the FIN if that is all that is left). */
  private retransmitFirst(): void {
    const inFlight = seqDiff(this.nxt, this.una) - (this.finIsSent ? 1 : 0);
    const length = Math.min(this.mss, inFlight);
    const fin = this.finIsSent && length === inFlight;
    if (length > 0 || fin) this.sendSegment(this.una, 0, length, true, fin);
  }

  /**
   * After a timeout everything in flight is suspect: resend it all, as far as the guest's
   * window goes (what slow start from one segment would reach within a few round trips here).
   */
  private retransmitInFlight(): void {
    const inFlight = seqDiff(this.nxt, this.una) - (this.finIsSent ? 1 : 0);
    const limit = Math.max(this.window, this.mss);
    let offset = 0;
    do {
      const length = Math.min(this.mss, inFlight - offset);
      const fin = this.finIsSent && offset + length === inFlight;
      if (length > 0 || fin) this.sendSegment(seqAdd(this.una, offset), offset, length, true, fin);
      offset += length;
    } while (offset < inFlight && offset < limit);
  }

  /**
   * The retransmission timer fired on a live connection: back off and resend (the SYN-ACK while
   * `handshaking`). False when the retries are used up: the connection must be reset.
   */
  retransmit(handshaking: boolean): boolean {
    if (++this.retries > this.host.config.maxRetransmits) return false;
    this.rto.backoff();
    if (handshaking) {
      this.host.counters.tcpRetransmits++;
      this.sendSynAck();
    } else if (this.una === this.nxt) {
      // Zero window and nothing in flight: probe with one byte beyond the window.
      if (this.buffer.length > 0) {
        this.sendSegment(this.nxt, 0, 1, false);
        this.nxt = seqAdd(this.nxt, 1);
      }
    } else {
      this.recovering = false;
      this.retransmitInFlight();
    }
    this.retransmitTimer.set(this.rto.value);
    return true;
  }

  /** The ACK side of an incoming segment: window update, acknowledged bytes, duplicate ACKs. */
  onAck(seg: TcpSegment): AckOutcome {
    const ack = seg.ack;
    if (seqDiff(ack, this.nxt) > 0) return "unacceptable";
    if (seqDiff(ack, this.una) < 0) return "accepted"; // an old ACK: its data may still be new
    let windowChanged = false;
    if (seqDiff(seg.seq, this.wl1) > 0 || (seg.seq === this.wl1 && seqDiff(ack, this.wl2) >= 0)) {
      windowChanged = this.window !== seg.window;
      this.window = seg.window;
      this.wl1 = seg.seq;
      this.wl2 = ack;
    }
    this.retries = 0; // the guest is alive
    const acked = seqDiff(ack, this.una);
    if (acked > 0) {
      const finNowAcked = this.finIsSent && ack === this.nxt;
      this.buffer.drop(acked - (finNowAcked ? 1 : 0));
      this.una = ack;
      this.dupAcks = 0;
      this.rto.acked(ack);
      if (this.una === this.nxt) this.retransmitTimer.clear();
      else this.retransmitTimer.set(this.rto.value);
      if (this.recovering) {
        if (seqDiff(ack, this.recover) < 0)
          this.retransmitFirst(); // partial ACK: the next hole
        else this.recovering = false;
      }
      this.releaseWriters();
      if (finNowAcked) {
        this.finIsAcked = true;
        return "fin-acked";
      }
    } else if (seg.payload.length === 0 && !(seg.flags & TCP_FIN) && !windowChanged && this.una !== this.nxt) {
      if (++this.dupAcks === 3 && !this.recovering) {
        this.recovering = true;
        this.recover = this.nxt;
        this.retransmitFirst(); // fast retransmit (RFC 5681 §3.2)
      }
    }
    return "accepted";
  }

  private releaseWriters(): void {
    if (this.buffer.length >= this.host.config.sendBuffer) return;
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const w of waiters) w.resolve();
  }

  /** TIME-WAIT: nothing of ours is left to resend. */
  stopRetransmitting(): void {
    this.retransmitTimer.clear();
  }

  /** The connection is gone: stop the timer and fail waiting writers. */
  dispose(error: Error): void {
    this.retransmitTimer.dispose();
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const w of waiters) w.reject(error);
  }
}

import type { TcpHost } from "./tcp-host";
import { ReorderBuffer } from "./tcp-reassembly";
import { TCP_FIN, type TcpSegment } from "./tcp-segment";
import { seqAdd, seqDiff } from "./tcp-sequence";
import type { StreamEnds } from "./tcp-stream";
import { Deadline } from "./timers";

const MAX_WINDOW = 0xffff; // no window scaling is negotiated: the field is the window

/** What the receive side needs from its connection. */
export interface ReceiverLink {
  /** Sends an ACK now (it carries the window this side advertises). */
  sendAck(): void;
  /** The guest's FIN arrived in order. */
  finReceived(): void;
  /** Data or a FIN came again after the guest's FIN: acknowledge it again. */
  finRepeated(): void;
}

/**
 * The receive half of a connection (RFC 9293): RCV.NXT and the advertised window (never
 * shrunk, no silly window increments), in-order delivery to the page's readable, a bounded
 * reordering buffer for segments past a hole, delayed ACKs, and the guest's FIN.
 */
export class TcpReceiver {
  private nxt: number;
  private rightEdge: number;
  private lastWindow = 0;
  private finIsReceived = false;
  private readonly reorder: ReorderBuffer;
  private unackedBytes = 0;
  private readonly ackTimer: Deadline;
  private ends: StreamEnds | null = null;
  bytesIn = 0;

  constructor(
    private readonly host: Pick<TcpHost, "config" | "timers" | "counters">,
    private readonly link: ReceiverLink,
    irs: number,
  ) {
    this.nxt = seqAdd(irs, 1);
    this.rightEdge = this.nxt;
    this.reorder = new ReorderBuffer(host.config.outOfOrderLimit);
    this.ackTimer = new Deadline(host.timers, () => link.sendAck());
  }

  /** RCV.NXT: the next sequence number expected from the guest. */
  get rcvNxt(): number {
    return this.nxt;
  }

  get finReceived(): boolean {
    return this.finIsReceived;
  }

  /** The readable's queue, once the handshake completed. */
  attach(ends: StreamEnds): void {
    this.ends = ends;
  }

  /** RFC 5961 §3: only a RST inside the window may tear the connection down. */
  acceptsReset(seq: number): boolean {
    const offset = seqDiff(seq, this.nxt);
    return offset >= 0 && offset < Math.max(this.lastWindow, 1);
  }

  /** The window to advertise now; never shrinks the right edge already offered (RFC 9293 §3.8.6). */
  advertiseWindow(): number {
    const config = this.host.config;
    const free = this.ends ? this.ends.freeSpace : config.receiveBuffer;
    // Receiver-side silly window avoidance (RFC 1122 §4.2.3.3): no tiny window increments.
    let window = Math.min(MAX_WINDOW, free < Math.min(config.mss, config.receiveBuffer / 2) ? 0 : free);
    const offered = seqDiff(this.rightEdge, this.nxt);
    if (window < offered) window = offered;
    this.lastWindow = window;
    this.rightEdge = seqAdd(this.nxt, window);
    return window;
  }

  /** A segment carrying an ACK went out: nothing is left to acknowledge. */
  ackSent(): void {
    this.unackedBytes = 0;
    this.ackTimer.clear();
  }

  /** The data and FIN of an acceptable segment. */
  onData(seg: TcpSegment): void {
    const fin = (seg.flags & TCP_FIN) !== 0;
    if (seg.payload.length === 0 && !fin) {
      if (seg.seq !== this.nxt) this.link.sendAck(); // a keepalive or window probe
      return;
    }
    if (this.finIsReceived) {
      // After the guest's FIN only retransmissions can come: acknowledge them again.
      this.host.counters.tcpDuplicatesIn++;
      this.link.finRepeated();
      return;
    }
    const offset = seqDiff(this.nxt, seg.seq);
    if (offset < 0) {
      this.hold(seg.seq, seg.payload, fin);
      this.link.sendAck(); // duplicate ACK: tells the guest where the hole is
      return;
    }
    if (offset > seg.payload.length || (offset === seg.payload.length && !fin)) {
      this.host.counters.tcpDuplicatesIn++;
      this.link.sendAck();
      return;
    }
    const filledHole = this.accept(seg.payload.subarray(offset), fin);
    this.drainHeld();
    if (this.finIsReceived || filledHole || this.reorder.size > 0) this.link.sendAck();
    else if (this.unackedBytes >= 2 * this.host.config.mss) this.link.sendAck();
    else if (this.unackedBytes > 0) this.ackTimer.ensure(this.host.config.delayedAckMs);
    else this.link.sendAck(); // nothing accepted (window full): say so now
  }

  /** Takes in-order bytes starting at RCV.NXT, trimmed to the window. Returns true if a hole was filled. */
  private accept(data: Uint8Array, fin: boolean): boolean {
    const room = Math.max(seqDiff(this.rightEdge, this.nxt), this.ends ? Math.min(MAX_WINDOW, this.ends.freeSpace) : 0);
    let payload = data;
    let finAccepted = fin;
    if (payload.length > room) {
      payload = payload.subarray(0, room);
      finAccepted = false;
    }
    if (payload.length > 0) {
      this.nxt = seqAdd(this.nxt, payload.length);
      this.bytesIn += payload.length;
      this.unackedBytes += payload.length;
      this.ends?.deliver(payload);
    }
    if (finAccepted) this.receiveFin();
    return this.reorder.size > 0 && payload.length > 0;
  }

  private hold(seq: number, data: Uint8Array, fin: boolean): void {
    if (this.reorder.hold({ seq, data, fin }, this.rightEdge)) this.host.counters.tcpOutOfOrderIn++;
    else this.host.counters.tcpOutOfOrderDropped++;
  }

  private drainHeld(): void {
    for (let next = this.reorder.takeNext(this.nxt); next && !this.finIsReceived; next = this.reorder.takeNext(this.nxt)) {
      this.accept(next.data, next.fin);
    }
  }

  private receiveFin(): void {
    this.nxt = seqAdd(this.nxt, 1);
    this.finIsReceived = true;
    this.reorder.clear();
    this.ends?.end();
    this.link.finReceived();
  }

  /** The consumer read: true when the window opened enough to be worth a window update. */
  windowUpdateDue(): boolean {
    const before = this.lastWindow;
    const free = Math.min(MAX_WINDOW, this.ends?.freeSpace ?? 0);
    const mss = this.host.config.mss;
    return free - before >= 2 * mss || (before === 0 && free >= mss);
  }

  dispose(): void {
    this.ackTimer.dispose();
  }
}

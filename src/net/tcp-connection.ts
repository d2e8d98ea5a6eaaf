import { formatIpv4Address, type Ipv4Address } from "./address";
import type { TcpHost } from "./tcp-host";
import { ReorderBuffer } from "./tcp-reassembly";
import { RtoEstimator } from "./tcp-rto";
import { TCP_ACK, TCP_FIN, TCP_PSH, TCP_RST, TCP_SYN, type TcpHeaderFields, type TcpSegment } from "./tcp-segment";
import { SendBuffer } from "./tcp-send-buffer";
import { createStreamEnds, type StreamEnds, type StreamSide } from "./tcp-stream";
import { Deadline } from "./timers";

export type TcpState =
  | "syn-received"
  | "established"
  | "close-wait"
  | "fin-wait-1"
  | "fin-wait-2"
  | "closing"
  | "last-ack"
  | "time-wait"
  | "closed";

// Sequence numbers live modulo 2^32 (RFC 9293 §3.4): compare by signed 32-bit difference.
const diff = (a: number, b: number): number => (a - b) | 0;
const add = (a: number, n: number): number => (a + n) >>> 0;
const MAX_WINDOW = 0xffff; // no window scaling is negotiated: the field is the window

/**
 * One passive-open TCP connection (RFC 9293) with the guest: handshake, sliding windows both
 * ways, RTO retransmission with Karn's rule and backoff (RFC 6298), fast retransmit with
 * NewReno-style partial ACKs, bounded reordering buffer, delayed ACKs, half-close, RST and a
 * short TIME-WAIT. Congestion control is deliberately absent: the wire is a memory copy.
 */
export class TcpConnection implements StreamSide {
  state: TcpState = "syn-received";
  readonly irs: number;
  private readonly iss: number;
  private sndUna: number;
  private sndNxt: number;
  private sndWnd: number;
  private sndWl1: number;
  private sndWl2: number;
  private readonly sendMss: number;
  private readonly sendBuffer = new SendBuffer();
  private finQueued = false;
  private finSent = false;
  private finAcked = false;
  private recovering = false;
  private recover = 0;
  private dupAcks = 0;
  private writeWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  private rcvNxt: number;
  private rcvRightEdge: number;
  private lastWindow = 0;
  private finReceived = false;
  private readonly reorder: ReorderBuffer;
  private unackedBytes = 0;

  private readonly rto: RtoEstimator;
  private retries = 0;
  private readonly retransmitTimer: Deadline;
  private readonly ackTimer: Deadline;
  private readonly timeWaitTimer: Deadline;

  bytesIn = 0;
  bytesOut = 0;
  private ends: StreamEnds | null = null;

  constructor(
    private readonly host: TcpHost,
    readonly id: string,
    readonly localIp: Ipv4Address,
    readonly localPort: number,
    readonly remoteIp: Ipv4Address,
    readonly remotePort: number,
    syn: TcpSegment,
    iss: number,
  ) {
    const config = host.config;
    this.irs = syn.seq;
    this.rcvNxt = add(syn.seq, 1);
    this.rcvRightEdge = this.rcvNxt;
    this.iss = iss >>> 0;
    this.sndUna = this.iss;
    this.sndNxt = add(this.iss, 1);
    this.sndWnd = syn.window;
    this.sndWl1 = syn.seq;
    this.sndWl2 = this.iss;
    // RFC 9293 §3.7.1: without the option the default send MSS is 536.
    this.sendMss = Math.max(1, Math.min(syn.mss ?? 536, config.mss));
    this.rto = new RtoEstimator(host.timers, config.initialRtoMs, config.minRtoMs, config.maxRtoMs);
    this.reorder = new ReorderBuffer(config.outOfOrderLimit);
    this.retransmitTimer = new Deadline(host.timers, () => this.onRetransmitTimeout());
    this.ackTimer = new Deadline(host.timers, () => this.sendAck());
    this.timeWaitTimer = new Deadline(host.timers, () => this.finish());
    this.sendSynAck();
  }

  get remote(): string {
    return `${formatIpv4Address(this.remoteIp)}:${this.remotePort}`;
  }

  /** A segment for this connection arrived (checksum already verified). */
  onSegment(seg: TcpSegment): void {
    const flags = seg.flags;
    if (this.state === "closed") return;
    if (flags & TCP_RST) {
      // RFC 5961 §3: only a RST inside the window may tear the connection down.
      const offset = diff(seg.seq, this.rcvNxt);
      if (offset >= 0 && offset < Math.max(this.lastWindow, 1)) this.reset("the guest sent RST", false);
      return;
    }
    if (this.state === "syn-received") {
      if (flags & TCP_SYN) {
        if (seg.seq === this.irs && !(flags & TCP_ACK)) this.sendSynAck(); // the guest retransmitted its SYN
        return;
      }
      if (!(flags & TCP_ACK)) return;
      if (seg.ack !== this.sndNxt) {
        this.transmit({ seq: seg.ack, ack: 0, flags: TCP_RST }); // RFC 9293: an unacceptable ACK in SYN-RECEIVED
        return;
      }
      this.establish(seg);
    } else if (flags & TCP_SYN) {
      this.sendAck(); // challenge ACK (RFC 5961 §4)
      return;
    }
    if (!(flags & TCP_ACK)) return;
    if (!this.processAck(seg) || this.isClosed) return;
    this.processData(seg);
    if (!this.isClosed) this.pump();
  }

  /** A getter, so checks after calls that may close the connection are not narrowed away. */
  get isClosed(): boolean {
    return this.state === "closed";
  }

  private establish(seg: TcpSegment): void {
    this.state = "established";
    this.sndUna = seg.ack;
    this.retries = 0;
    this.retransmitTimer.clear();
    this.rto.acked(seg.ack);
    this.ends = createStreamEnds(
      { id: this.id, remote: { address: formatIpv4Address(this.remoteIp), port: this.remotePort }, localPort: this.localPort },
      this,
      this.host.config.receiveBuffer,
    );
    this.host.established(this, this.ends.stream);
  }

  // ——— sending ———

  private sendSynAck(): void {
    this.transmit({ seq: this.iss, ack: this.rcvNxt, flags: TCP_SYN | TCP_ACK, mss: this.host.config.mss });
    this.retransmitTimer.ensure(this.rto.value);
  }

  /** Sends an ACK now (also: a window update, a duplicate ACK, a challenge ACK). */
  sendAck(): void {
    if (this.state === "closed" || this.state === "syn-received") return;
    this.transmit({ seq: this.sndNxt, ack: this.rcvNxt, flags: TCP_ACK });
  }

  private transmit(fields: Omit<TcpHeaderFields, "srcPort" | "dstPort" | "window">, length = 0, offset = 0): void {
    const window = fields.flags & TCP_RST ? 0 : this.advertiseWindow();
    const header: TcpHeaderFields = { ...fields, srcPort: this.localPort, dstPort: this.remotePort, window };
    const fill = length > 0 ? (out: Uint8Array, at: number) => this.sendBuffer.copyTo(offset, length, out, at) : null;
    this.host.transmit(this, header, length, fill);
    if (fields.flags & TCP_ACK) {
      this.unackedBytes = 0;
      this.ackTimer.clear();
    }
  }

  /** The window to advertise now; never shrinks the right edge already offered (RFC 9293 §3.8.6). */
  private advertiseWindow(): number {
    const free = this.ends ? this.ends.freeSpace : this.host.config.receiveBuffer;
    // Receiver-side silly window avoidance (RFC 1122 §4.2.3.3): no tiny window increments.
    let window = Math.min(MAX_WINDOW, free < Math.min(this.host.config.mss, this.host.config.receiveBuffer / 2) ? 0 : free);
    const offered = diff(this.rcvRightEdge, this.rcvNxt);
    if (window < offered) window = offered;
    this.lastWindow = window;
    this.rcvRightEdge = add(this.rcvNxt, window);
    return window;
  }

  /** Sends what the guest's window allows, then the FIN once all data is out. */
  private pump(): void {
    if (this.state === "syn-received" || this.state === "closed") return;
    for (;;) {
      const inFlight = diff(this.sndNxt, this.sndUna) - (this.finSent ? 1 : 0);
      const unsent = this.sendBuffer.length - inFlight;
      if (unsent > 0) {
        const usable = this.sndWnd - diff(this.sndNxt, this.sndUna);
        if (usable <= 0) break;
        const length = Math.min(unsent, usable, this.sendMss);
        this.sendSegment(this.sndNxt, inFlight, length, false);
        this.sndNxt = add(this.sndNxt, length);
        continue;
      }
      if (this.finQueued && !this.finSent) this.sendFin();
      break;
    }
    if (this.sndUna !== this.sndNxt || (this.sendBuffer.length > 0 && this.sndWnd === 0)) this.retransmitTimer.ensure(this.rto.value);
  }

  private sendSegment(seq: number, offset: number, length: number, retransmit: boolean, fin = false): void {
    const last = offset + length === this.sendBuffer.length;
    const flags = TCP_ACK | (last && length > 0 ? TCP_PSH : 0) | (fin ? TCP_FIN : 0);
    this.transmit({ seq, ack: this.rcvNxt, flags }, length, offset);
    if (retransmit) {
      this.host.counters.tcpRetransmits++;
      this.rto.retransmitted();
    } else {
      this.bytesOut += length;
      this.rto.sent(add(seq, length));
    }
  }

  private sendFin(): void {
    this.sendSegment(this.sndNxt, this.sendBuffer.length, 0, false, true);
    this.sndNxt = add(this.sndNxt, 1);
    this.finSent = true;
    if (this.state === "established") this.state = "fin-wait-1";
    else if (this.state === "close-wait") this.state = "last-ack";
  }

  /** Retransmits one segment from SND.UNA (with the FIN if that is all that is left). */
  private retransmitFirst(): void {
    const inFlight = diff(this.sndNxt, this.sndUna) - (this.finSent ? 1 : 0);
    const length = Math.min(this.sendMss, inFlight);
    const fin = this.finSent && length === inFlight;
    if (length > 0 || fin) this.sendSegment(this.sndUna, 0, length, true, fin);
  }

  /**
   * After a timeout everything in flight is suspect: resend it all, as far as the guest's
   * window goes (what slow start from one segment would reach within a few round trips here).
   */
  private retransmitInFlight(): void {
    const inFlight = diff(this.sndNxt, this.sndUna) - (this.finSent ? 1 : 0);
    const limit = Math.max(this.sndWnd, this.sendMss);
    let offset = 0;
    do {
      const length = Math.min(this.sendMss, inFlight - offset);
      const fin = this.finSent && offset + length === inFlight;
      if (length > 0 || fin) this.sendSegment(add(this.sndUna, offset), offset, length, true, fin);
      offset += length;
    } while (offset < inFlight && offset < limit);
  }

  private onRetransmitTimeout(): void {
    if (this.state === "closed" || this.state === "time-wait") return;
    if (++this.retries > this.host.config.maxRetransmits) {
      this.reset(`no acknowledgement after ${this.host.config.maxRetransmits} retransmissions`, true);
      return;
    }
    this.rto.backoff();
    if (this.state === "syn-received") {
      this.host.counters.tcpRetransmits++;
      this.sendSynAck();
    } else if (this.sndUna === this.sndNxt) {
      // Zero window and nothing in flight: probe with one byte beyond the window.
      if (this.sendBuffer.length > 0) {
        this.sendSegment(this.sndNxt, 0, 1, false);
        this.sndNxt = add(this.sndNxt, 1);
      }
    } else {
      this.recovering = false;
      this.retransmitInFlight();
    }
    this.retransmitTimer.set(this.rto.value);
  }

  // ——— receiving ———

  /** Returns false when the segment must be dropped after the ACK check. */
  private processAck(seg: TcpSegment): boolean {
    const ack = seg.ack;
    if (diff(ack, this.sndNxt) > 0) {
      this.sendAck(); // it acknowledges something never sent
      return false;
    }
    if (diff(ack, this.sndUna) < 0) return true; // an old ACK: its data may still be new
    let windowChanged = false;
    if (diff(seg.seq, this.sndWl1) > 0 || (seg.seq === this.sndWl1 && diff(ack, this.sndWl2) >= 0)) {
      windowChanged = this.sndWnd !== seg.window;
      this.sndWnd = seg.window;
      this.sndWl1 = seg.seq;
      this.sndWl2 = ack;
    }
    this.retries = 0; // the guest is alive
    const acked = diff(ack, this.sndUna);
    if (acked > 0) {
      const finNowAcked = this.finSent && ack === this.sndNxt;
      this.sendBuffer.drop(acked - (finNowAcked ? 1 : 0));
      this.sndUna = ack;
      this.dupAcks = 0;
      this.rto.acked(ack);
      if (this.sndUna === this.sndNxt) this.retransmitTimer.clear();
      else this.retransmitTimer.set(this.rto.value);
      if (this.recovering) {
        if (diff(ack, this.recover) < 0)
          this.retransmitFirst(); // partial ACK: the next hole
        else this.recovering = false;
      }
      this.releaseWriters();
      if (finNowAcked) {
        this.finAcked = true;
        if (this.state === "fin-wait-1") this.state = "fin-wait-2";
        else if (this.state === "closing") this.enterTimeWait();
        else if (this.state === "last-ack") {
          this.finish();
          return false;
        }
      }
    } else if (seg.payload.length === 0 && !(seg.flags & TCP_FIN) && !windowChanged && this.sndUna !== this.sndNxt) {
      if (++this.dupAcks === 3 && !this.recovering) {
        this.recovering = true;
        this.recover = this.sndNxt;
        this.retransmitFirst(); // fast retransmit (RFC 5681 §3.2)
      }
    }
    return true;
  }

  private processData(seg: TcpSegment): void {
    const fin = (seg.flags & TCP_FIN) !== 0;
    if (seg.payload.length === 0 && !fin) {
      if (seg.seq !== this.rcvNxt) this.sendAck(); // a keepalive or window probe
      return;
    }
    if (this.finReceived) {
      // After the guest's FIN only retransmissions can come: acknowledge them again.
      this.host.counters.tcpDuplicatesIn++;
      this.sendAck();
      if (this.state === "time-wait") this.timeWaitTimer.set(this.host.config.timeWaitMs);
      return;
    }
    const offset = diff(this.rcvNxt, seg.seq);
    if (offset < 0) {
      this.hold(seg.seq, seg.payload, fin);
      this.sendAck(); // duplicate ACK: tells the guest where the hole is
      return;
    }
    if (offset > seg.payload.length || (offset === seg.payload.length && !fin)) {
      this.host.counters.tcpDuplicatesIn++;
      this.sendAck();
      return;
    }
    const filledHole = this.accept(seg.payload.subarray(offset), fin);
    this.drainHeld();
    if (this.finReceived || filledHole || this.reorder.size > 0) this.sendAck();
    else if (this.unackedBytes >= 2 * this.host.config.mss) this.sendAck();
    else if (this.unackedBytes > 0) this.ackTimer.ensure(this.host.config.delayedAckMs);
    else this.sendAck(); // nothing accepted (window full): say so now
  }

  /** Takes in-order bytes starting at RCV.NXT, trimmed to the window. Returns true if a hole was filled. */
  private accept(data: Uint8Array, fin: boolean): boolean {
    const room = Math.max(diff(this.rcvRightEdge, this.rcvNxt), this.ends ? Math.min(MAX_WINDOW, this.ends.freeSpace) : 0);
    let payload = data;
    let finAccepted = fin;
    if (payload.length > room) {
      payload = payload.subarray(0, room);
      finAccepted = false;
    }
    if (payload.length > 0) {
      this.rcvNxt = add(this.rcvNxt, payload.length);
      this.bytesIn += payload.length;
      this.unackedBytes += payload.length;
      this.ends?.deliver(payload);
    }
    if (finAccepted) this.receiveFin();
    return this.reorder.size > 0 && payload.length > 0;
  }

  private hold(seq: number, data: Uint8Array, fin: boolean): void {
    if (this.reorder.hold({ seq, data, fin }, this.rcvRightEdge)) this.host.counters.tcpOutOfOrderIn++;
    else this.host.counters.tcpOutOfOrderDropped++;
  }

  private drainHeld(): void {
    for (let next = this.reorder.takeNext(this.rcvNxt); next && !this.finReceived; next = this.reorder.takeNext(this.rcvNxt)) {
      this.accept(next.data, next.fin);
    }
  }

  private receiveFin(): void {
    this.rcvNxt = add(this.rcvNxt, 1);
    this.finReceived = true;
    this.reorder.clear();
    this.ends?.end();
    if (this.state === "established") this.state = "close-wait";
    else if (this.state === "fin-wait-1") {
      if (this.finAcked) this.enterTimeWait();
      else this.state = "closing";
    } else if (this.state === "fin-wait-2") this.enterTimeWait();
  }

  // ——— the page's side (StreamSide) ———

  write(chunk: Uint8Array): Promise<void> | undefined {
    if (this.state === "closed") throw new Error(`connection ${this.id} is closed`);
    if (this.finQueued) throw new Error(`connection ${this.id} was closed for writing`);
    // One defensive copy: the writer may reuse its buffer once write() resolves.
    this.sendBuffer.push(chunk.slice());
    this.pump();
    if (this.sendBuffer.length < this.host.config.sendBuffer) return undefined;
    return new Promise((resolve, reject) => this.writeWaiters.push({ resolve, reject }));
  }

  closeWrite(): void {
    if (this.finQueued || this.state === "closed") return;
    this.finQueued = true;
    this.pump();
  }

  abort(reason: string): void {
    if (this.state !== "closed") this.reset(reason, true);
  }

  readOpened(): void {
    if (this.finReceived || this.state === "closed" || this.state === "syn-received") return;
    const before = this.lastWindow;
    const free = Math.min(MAX_WINDOW, this.ends?.freeSpace ?? 0);
    if (free - before >= 2 * this.host.config.mss || (before === 0 && free >= this.host.config.mss)) this.sendAck();
  }

  readCancelled(): void {
    this.readOpened();
  }

  private releaseWriters(): void {
    if (this.sendBuffer.length >= this.host.config.sendBuffer) return;
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const w of waiters) w.resolve();
  }

  // ——— the end ———

  private enterTimeWait(): void {
    this.state = "time-wait";
    this.retransmitTimer.clear();
    this.timeWaitTimer.set(this.host.config.timeWaitMs);
  }

  /** Ends the connection normally (after TIME-WAIT or LAST-ACK). */
  finish(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.dispose(new Error(`connection ${this.id} closed`));
    this.host.closed(this, "close");
  }

  /** Ends the connection abruptly; `sendRst` tells the guest. */
  reset(reason: string, sendRst: boolean): void {
    if (this.state === "closed") return;
    if (sendRst) this.transmit({ seq: this.sndNxt, ack: this.rcvNxt, flags: TCP_RST | TCP_ACK });
    this.state = "closed";
    const error = new Error(`connection ${this.id} reset: ${reason}`);
    this.ends?.fail(error);
    this.dispose(error);
    this.host.closed(this, "reset", reason);
  }

  private dispose(error: Error): void {
    this.retransmitTimer.dispose();
    this.ackTimer.dispose();
    this.timeWaitTimer.dispose();
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const w of waiters) w.reject(error);
  }
}

import { formatIpv4Address, type Ipv4Address } from "./address";
import type { TcpHost } from "./tcp-host";
import { TcpReceiver } from "./tcp-receiver";
import { TCP_ACK, TCP_RST, TCP_SYN, type TcpSegment } from "./tcp-segment";
import { type OutgoingFields, type PayloadFill, TcpSender } from "./tcp-sender";
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

/**
 * One passive-open TCP connection (RFC 9293) with the guest: the state machine from the
 * handshake to half-close, RST and a short TIME-WAIT, joining its two halves (`TcpSender`:
 * windows, segmentation, retransmission; `TcpReceiver`: reassembly, delayed ACKs) and the
 * page's streams.
 */
export class TcpConnection implements StreamSide {
  state: TcpState = "syn-received";
  readonly irs: number;
  private readonly sender: TcpSender;
  private readonly receiver: TcpReceiver;
  private readonly timeWaitTimer: Deadline;
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
    this.irs = syn.seq;
    this.receiver = new TcpReceiver(
      host,
      {
        sendAck: () => this.sendAck(),
        finReceived: () => this.onFinReceived(),
        finRepeated: () => this.onFinRepeated(),
      },
      syn.seq,
    );
    this.sender = new TcpSender(
      host,
      {
        ackNumber: () => this.receiver.rcvNxt,
        transmit: (fields, length, fill) => this.transmit(fields, length, fill),
        finSent: () => this.onFinSent(),
        retransmitTimeout: () => this.onRetransmitTimeout(),
      },
      syn,
      iss,
    );
    this.timeWaitTimer = new Deadline(host.timers, () => this.finish());
    this.sender.sendSynAck();
  }

  get remote(): string {
    return `${formatIpv4Address(this.remoteIp)}:${this.remotePort}`;
  }

  get bytesIn(): number {
    return this.receiver.bytesIn;
  }

  get bytesOut(): number {
    return this.sender.bytesOut;
  }

  /** A segment for this connection arrived (checksum already verified). */
  onSegment(seg: TcpSegment): void {
    const flags = seg.flags;
    if (this.state === "closed") return;
    if (flags & TCP_RST) {
      if (this.receiver.acceptsReset(seg.seq)) this.reset("the guest sent RST", false);
      return;
    }
    if (this.state === "syn-received") {
      if (flags & TCP_SYN) {
        if (seg.seq === this.irs && !(flags & TCP_ACK)) this.sender.sendSynAck(); // the guest retransmitted its SYN
        return;
      }
      if (!(flags & TCP_ACK)) return;
      if (seg.ack !== this.sender.sndNxt) {
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
    this.receiver.onData(seg);
    if (!this.isClosed) this.pump();
  }

  /** A getter, so checks after calls that may close the connection are not narrowed away. */
  get isClosed(): boolean {
    return this.state === "closed";
  }

  private establish(seg: TcpSegment): void {
    this.state = "established";
    this.sender.established(seg.ack);
    this.ends = createStreamEnds(
      { id: this.id, remote: { address: formatIpv4Address(this.remoteIp), port: this.remotePort }, localPort: this.localPort },
      this,
      this.host.config.receiveBuffer,
    );
    this.receiver.attach(this.ends);
    this.host.established(this, this.ends.stream);
  }

  /** Sends an ACK now (also: a window update, a duplicate ACK, a challenge ACK). */
  sendAck(): void {
    if (this.state === "closed" || this.state === "syn-received") return;
    this.transmit({ seq: this.sender.sndNxt, ack: this.receiver.rcvNxt, flags: TCP_ACK });
  }

  private transmit(fields: OutgoingFields, length = 0, fill: PayloadFill | null = null): void {
    const window = fields.flags & TCP_RST ? 0 : this.receiver.advertiseWindow();
    this.host.transmit(this, { ...fields, srcPort: this.localPort, dstPort: this.remotePort, window }, length, fill);
    if (fields.flags & TCP_ACK) this.receiver.ackSent();
  }

  private pump(): void {
    if (this.state === "syn-received" || this.state === "closed") return;
    this.sender.pump();
  }

  private onRetransmitTimeout(): void {
    if (this.state === "closed" || this.state === "time-wait") return;
    if (!this.sender.retransmit(this.state === "syn-received"))
      this.reset(`no acknowledgement after ${this.host.config.maxRetransmits} retransmissions`, true);
  }

  /** Returns false when the segment must be dropped after the ACK check. */
  private processAck(seg: TcpSegment): boolean {
    const outcome = this.sender.onAck(seg);
    if (outcome === "unacceptable") {
      this.sendAck(); // it acknowledges something never sent
      return false;
    }
    if (outcome === "fin-acked") {
      if (this.state === "fin-wait-1") this.state = "fin-wait-2";
      else if (this.state === "closing") this.enterTimeWait();
      else if (this.state === "last-ack") {
        this.finish();
        return false;
      }
    }
    return true;
  }

  private onFinSent(): void {
    if (this.state === "established") this.state = "fin-wait-1";
    else if (this.state === "close-wait") this.state = "last-ack";
  }

  private onFinReceived(): void {
    if (this.state === "established") this.state = "close-wait";
    else if (this.state === "fin-wait-1") {
      if (this.sender.finAcked) this.enterTimeWait();
      else this.state = "closing";
    } else if (this.state === "fin-wait-2") this.enterTimeWait();
  }

  /** The guest resent data or its FIN after its FIN: acknowledge again, and stay in TIME-WAIT longer. */
  private onFinRepeated(): void {
    this.sendAck();
    if (this.state === "time-wait") this.timeWaitTimer.set(this.host.config.timeWaitMs);
  }

  // ——— the page's side (StreamSide) ———

  write(chunk: Uint8Array): Promise<void> | undefined {
    if (this.state === "closed") throw new Error(`connection ${this.id} is closed`);
    if (this.sender.finQueued) throw new Error(`connection ${this.id} was closed for writing`);
    this.sender.queue(chunk);
    this.pump();
    return this.sender.room();
  }

  closeWrite(): void {
    if (this.sender.finQueued || this.state === "closed") return;
    this.sender.queueFin();
    this.pump();
  }

  abort(reason: string): void {
    if (this.state !== "closed") this.reset(reason, true);
  }

  readOpened(): void {
    if (this.receiver.finReceived || this.state === "closed" || this.state === "syn-received") return;
    if (this.receiver.windowUpdateDue()) this.sendAck();
  }

  readCancelled(): void {
    this.readOpened();
  }

  // ——— the end ———

  private enterTimeWait(): void {
    this.state = "time-wait";
    this.sender.stopRetransmitting();
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
    if (sendRst) this.transmit({ seq: this.sender.sndNxt, ack: this.receiver.rcvNxt, flags: TCP_RST | TCP_ACK });
    this.state = "closed";
    const error = new Error(`connection ${this.id} reset: ${reason}`);
    this.ends?.fail(error);
    this.dispose(error);
    this.host.closed(this, "reset", reason);
  }

  private dispose(error: Error): void {
    this.sender.dispose(error);
    this.receiver.dispose();
    this.timeWaitTimer.dispose();
  }
}

import { concatBytes } from "../../bytes";
import type { FakeTimers } from "../../platform/testing/fake-timers";
import { parseIpv4Address, parseMacAddress } from "../address";
import { ETHERTYPE_IPV4, parseEthernetFrame, serializeEthernetFrame } from "../ethernet";
import { PROTOCOL_TCP, parseIpv4Packet, serializeIpv4Packet } from "../ipv4";
import { parseTcpSegment, serializeTcpSegment, TCP_ACK, TCP_FIN, TCP_RST, TCP_SYN, type TcpSegment } from "../tcp-segment";
import type { GuestEnd } from "./fake-wire";

const diff = (a: number, b: number): number => (a - b) | 0;
const add = (a: number, n: number): number => (a + n) >>> 0;

export interface TestGuestOptions {
  timers: FakeTimers;
  guestIp?: string;
  guestMac?: string;
  peerIp?: string;
  peerMac?: string;
  /** The receive window this client advertises. */
  window?: number;
  rtoMs?: number;
}

/**
 * A deliberately simple, independent TCP client for tests (active open only): go-back-N
 * retransmission on a fixed timer, in-order receive only (out-of-order data is dropped and
 * re-ACKed), an ACK for every segment. Different enough from the peer that their bugs do not
 * cancel out.
 */
export class TestGuest {
  readonly ip: number;
  readonly mac: Uint8Array;
  readonly peerIp: number;
  readonly peerMac: Uint8Array;
  private readonly connections = new Map<number, TestConnection>();
  private nextPort = 40000;
  private nextIss = 0x10000000;

  constructor(
    private readonly end: GuestEnd,
    readonly options: TestGuestOptions,
  ) {
    this.ip = parseIpv4Address(options.guestIp ?? "10.0.2.15");
    this.mac = parseMacAddress(options.guestMac ?? "02:00:00:00:00:15");
    this.peerIp = parseIpv4Address(options.peerIp ?? "10.0.2.2");
    this.peerMac = parseMacAddress(options.peerMac ?? "52:54:00:00:02:02");
    end.onFrame((frame) => this.receive(frame));
  }

  connect(port: number, dstIp = this.peerIp): TestConnection {
    const conn = new TestConnection(this, this.nextPort++, dstIp, port, this.nextIss);
    this.nextIss = add(this.nextIss, 0x01000193);
    this.connections.set(conn.localPort, conn);
    conn.start();
    return conn;
  }

  transmit(conn: TestConnection, seq: number, ack: number, flags: number, payload: Uint8Array, mss: number | null = null): void {
    const tcp = serializeTcpSegment(
      { srcPort: conn.localPort, dstPort: conn.remotePort, seq, ack, flags, window: this.options.window ?? 65535, mss },
      payload,
      this.ip,
      conn.remoteIp,
    );
    const ip = serializeIpv4Packet({ src: this.ip, dst: conn.remoteIp, protocol: PROTOCOL_TCP, id: 0 }, tcp);
    this.end.send(serializeEthernetFrame({ dst: this.peerMac, src: this.mac, ethertype: ETHERTYPE_IPV4, payload: ip }));
  }

  private receive(frame: Uint8Array): void {
    const eth = parseEthernetFrame(frame);
    if (eth.ethertype !== ETHERTYPE_IPV4) return;
    const ip = parseIpv4Packet(eth.payload);
    if (ip.protocol !== PROTOCOL_TCP || ip.dst !== this.ip) return;
    const seg = parseTcpSegment(ip.payload, ip.src, ip.dst);
    this.connections.get(seg.dstPort)?.onSegment(seg);
  }
}

export class TestConnection {
  state: "syn-sent" | "established" | "reset" | "closed" = "syn-sent";
  private sndUna: number;
  private sndNxt: number;
  /** The highest sequence number sent: ACKs up to here are valid even after a rewind. */
  private sndMax: number;
  private peerWindow = 0;
  private peerMss = 536;
  private outgoing: Uint8Array = new Uint8Array(0);
  private finQueued = false;
  private finSent = false;
  finAcked = false;
  private rcvNxt = 0;
  private readonly chunks: Uint8Array[] = [];
  receivedBytes = 0;
  /** The peer's FIN arrived (its writable closed). */
  gotFin = false;
  private timer: unknown = null;

  constructor(
    private readonly guest: TestGuest,
    readonly localPort: number,
    readonly remoteIp: number,
    readonly remotePort: number,
    private readonly iss: number,
  ) {
    this.sndUna = iss;
    this.sndNxt = add(iss, 1);
    this.sndMax = this.sndNxt;
  }

  start(): void {
    this.guest.transmit(this, this.iss, 0, TCP_SYN, new Uint8Array(0), 1460);
    this.arm();
  }

  /** Everything received so far, in order. */
  received(): Uint8Array {
    return concatBytes(...this.chunks);
  }

  send(data: Uint8Array): void {
    this.outgoing = concatBytes(this.outgoing, data);
    this.pump();
  }

  close(): void {
    this.finQueued = true;
    this.pump();
  }

  get allDataAcked(): boolean {
    return this.state === "established" && diff(this.sndUna, add(this.iss, 1 + this.outgoing.length)) >= 0;
  }

  onSegment(seg: TcpSegment): void {
    if (this.state === "closed") return; // late duplicates (and the RSTs they provoke) after the end
    if (seg.flags & TCP_RST) {
      this.state = "reset";
      this.disarm();
      return;
    }
    if (this.state === "syn-sent") {
      if ((seg.flags & (TCP_SYN | TCP_ACK)) !== (TCP_SYN | TCP_ACK) || seg.ack !== add(this.iss, 1)) return;
      this.state = "established";
      this.rcvNxt = add(seg.seq, 1);
      this.sndUna = seg.ack;
      this.peerWindow = seg.window;
      this.peerMss = seg.mss ?? 536;
      this.disarm();
      this.guest.transmit(this, this.sndNxt, this.rcvNxt, TCP_ACK, new Uint8Array(0));
      this.pump();
      return;
    }
    if (seg.flags & TCP_ACK && diff(seg.ack, this.sndUna) >= 0 && diff(seg.ack, this.sndMax) <= 0) {
      if (diff(seg.ack, this.sndUna) > 0) this.disarm();
      this.sndUna = seg.ack;
      if (diff(seg.ack, this.sndNxt) > 0) this.sndNxt = seg.ack; // after a go-back-N rewind
      this.peerWindow = seg.window;
      if (this.finQueued && seg.ack === add(this.iss, this.outgoing.length + 2)) {
        this.finSent = true;
        this.finAcked = true;
      }
    }
    const fin = (seg.flags & TCP_FIN) !== 0;
    if (seg.payload.length > 0 || fin) {
      if (seg.seq === this.rcvNxt && !this.gotFin) {
        if (seg.payload.length > 0) this.chunks.push(seg.payload.slice());
        this.receivedBytes += seg.payload.length;
        this.rcvNxt = add(this.rcvNxt, seg.payload.length);
        if (fin) {
          this.gotFin = true;
          this.rcvNxt = add(this.rcvNxt, 1);
        }
      }
      this.guest.transmit(this, this.sndNxt, this.rcvNxt, TCP_ACK, new Uint8Array(0));
    }
    if (this.finAcked && this.gotFin) {
      this.state = "closed";
      this.disarm();
      return;
    }
    this.pump();
  }

  private pump(): void {
    if (this.state !== "established") return;
    const base = add(this.iss, 1);
    for (;;) {
      const sentData = diff(this.sndNxt, base) - (this.finSent ? 1 : 0);
      const unsent = this.outgoing.length - sentData;
      const room = this.peerWindow - diff(this.sndNxt, this.sndUna);
      if (unsent > 0 && room > 0) {
        const length = Math.min(unsent, room, this.peerMss);
        this.guest.transmit(this, this.sndNxt, this.rcvNxt, TCP_ACK, this.outgoing.subarray(sentData, sentData + length));
        this.sndNxt = add(this.sndNxt, length);
        if (diff(this.sndNxt, this.sndMax) > 0) this.sndMax = this.sndNxt;
        continue;
      }
      if (unsent === 0 && this.finQueued && !this.finSent) {
        this.guest.transmit(this, this.sndNxt, this.rcvNxt, TCP_FIN | TCP_ACK, new Uint8Array(0));
        this.sndNxt = add(this.sndNxt, 1);
        if (diff(this.sndNxt, this.sndMax) > 0) this.sndMax = this.sndNxt;
        this.finSent = true;
      }
      break;
    }
    if (this.sndUna !== this.sndNxt || this.outgoing.length > diff(this.sndNxt, base)) this.arm();
  }

  private arm(): void {
    if (this.timer !== null) return;
    const timers = this.guest.options.timers;
    this.timer = timers.setTimeout(() => {
      this.timer = null;
      this.onTimeout();
    }, this.guest.options.rtoMs ?? 50);
  }

  private disarm(): void {
    if (this.timer !== null) this.guest.options.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private onTimeout(): void {
    if (this.state === "syn-sent") {
      this.start();
      return;
    }
    if (this.state !== "established") return;
    // Go-back-N: resend everything from the first unacknowledged byte.
    this.sndNxt = this.sndUna;
    if (this.finSent && !this.finAcked) this.finSent = false;
    const base = add(this.iss, 1);
    if (this.peerWindow === 0 && this.outgoing.length > diff(this.sndNxt, base)) {
      const at = diff(this.sndNxt, base);
      this.guest.transmit(this, this.sndNxt, this.rcvNxt, TCP_ACK, this.outgoing.subarray(at, at + 1)); // window probe
      this.arm();
      return;
    }
    this.pump();
  }
}

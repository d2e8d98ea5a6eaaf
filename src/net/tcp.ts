import { type EventLog, refuse } from "../log";
import { messageOf, type Timers } from "../platform";
import { formatIpv4Address, type Ipv4Address } from "./address";
import type { NetCounters } from "./counters";
import { allocateIpv4Frame, type Ipv4Route, TRANSPORT_OFFSET } from "./frame";
import { type Ipv4Packet, PROTOCOL_TCP } from "./ipv4";
import { TcpConnection, type TcpState } from "./tcp-connection";
import type { TcpConfig, TcpHost } from "./tcp-host";
import {
  fillTcpChecksum,
  parseTcpSegment,
  TCP_ACK,
  TCP_FIN,
  TCP_RST,
  TCP_SYN,
  type TcpHeaderFields,
  type TcpSegment,
  tcpHeaderLength,
  writeTcpHeader,
} from "./tcp-segment";
import { seqAdd } from "./tcp-sequence";
import type { TcpStream } from "./tcp-stream";

export type AcceptHandler = (stream: TcpStream) => void;

export interface TcpLayerOptions {
  config: TcpConfig;
  timers: Timers;
  counters: NetCounters;
  log: EventLog;
  /** The peer's own address: the only one with listening sockets. */
  localIp: Ipv4Address;
  /** Link-layer addressing for a frame to the guest (from `src`, which may be a refused address). */
  route(src: Ipv4Address, dst: Ipv4Address): Ipv4Route;
  nextIpId(): number;
  /** Initial sequence numbers (RFC 9293 §3.4.1); injected so tests are exact. */
  isn(): number;
  send(frame: Uint8Array): void;
}

/** A connection as views show it. */
export interface ConnectionInfo {
  id: string;
  remote: string;
  localPort: number;
  state: TcpState;
  bytesIn: number;
  bytesOut: number;
}

export interface TcpLayer {
  listen(port: number, onAccept: AcceptHandler): () => void;
  /** Handles one IPv4 packet carrying TCP; throws MalformedFrame for a bad segment. */
  receive(packet: Ipv4Packet): void;
  readonly connectionCount: number;
  /** The live connections, for views and tests. */
  connections(): ConnectionInfo[];
  /** Resets every connection (RST to the guest) and stops all timers. */
  close(): void;
}

/** The TCP endpoint: listening sockets, the connection table, and RSTs for everything else. */
export function createTcpLayer(options: TcpLayerOptions): TcpLayer {
  const { config, timers, counters, log, localIp } = options;
  const listeners = new Map<number, AcceptHandler>();
  // Keyed by guest port << 16 | local port; the guest address is checked on lookup.
  const connections = new Map<number, TcpConnection>();
  let nextId = 1;

  const host: TcpHost = {
    config,
    timers,
    counters,
    transmit(conn, header, payloadLength, fill) {
      sendSegment(options.route(conn.localIp, conn.remoteIp), header, payloadLength, fill);
    },
    established(conn, stream) {
      counters.connectionsOpened++;
      log.append({
        kind: "wire.connection",
        id: conn.id,
        phase: "open",
        remote: conn.remote,
        port: conn.localPort,
        bytesIn: 0,
        bytesOut: 0,
      });
      const onAccept = listeners.get(conn.localPort);
      if (!onAccept) {
        conn.abort(`nothing listens on port ${conn.localPort} any more`);
        return;
      }
      try {
        onAccept(stream);
      } catch (error) {
        conn.abort(`the accept handler threw: ${messageOf(error)}`);
      }
    },
    closed(conn, how, reason) {
      if (connections.get(keyOf(conn.remotePort, conn.localPort)) === conn) connections.delete(keyOf(conn.remotePort, conn.localPort));
      log.append({
        kind: "wire.connection",
        id: conn.id,
        phase: how,
        remote: conn.remote,
        port: conn.localPort,
        bytesIn: conn.bytesIn,
        bytesOut: conn.bytesOut,
        ...(reason ? { note: reason } : {}),
      });
    },
  };

  function sendSegment(
    route: Ipv4Route,
    header: TcpHeaderFields,
    payloadLength: number,
    fill: ((out: Uint8Array, offset: number) => void) | null,
  ): void {
    const headerLength = tcpHeaderLength(header);
    const frame = allocateIpv4Frame(route, PROTOCOL_TCP, options.nextIpId(), headerLength + payloadLength);
    writeTcpHeader(frame, TRANSPORT_OFFSET, header);
    if (fill) fill(frame, TRANSPORT_OFFSET + headerLength);
    fillTcpChecksum(frame, TRANSPORT_OFFSET, headerLength + payloadLength, route.src, route.dst);
    counters.tcpSegmentsOut++;
    options.send(frame);
  }

  /** RFC 9293 §3.10.7.1: the reset for a segment that belongs to no connection. */
  function resetFor(packet: Ipv4Packet, seg: TcpSegment): void {
    const length = seg.payload.length + (seg.flags & TCP_SYN ? 1 : 0) + (seg.flags & TCP_FIN ? 1 : 0);
    const header: TcpHeaderFields =
      seg.flags & TCP_ACK
        ? { srcPort: seg.dstPort, dstPort: seg.srcPort, seq: seg.ack, ack: 0, flags: TCP_RST, window: 0 }
        : { srcPort: seg.dstPort, dstPort: seg.srcPort, seq: 0, ack: seqAdd(seg.seq, length), flags: TCP_RST | TCP_ACK, window: 0 };
    sendSegment(options.route(packet.dst, packet.src), header, 0, null);
  }

  function refuseSyn(packet: Ipv4Packet, seg: TcpSegment, reason: string): void {
    counters.connectionsRefused++;
    const target = `${formatIpv4Address(packet.dst)}:${seg.dstPort}`;
    log.append({ kind: "wire.verdict", target, ...refuse("no-route", reason, "wire") });
    resetFor(packet, seg);
  }

  function accept(packet: Ipv4Packet, seg: TcpSegment): void {
    if (packet.dst !== localIp) {
      refuseSyn(packet, seg, `no route out of the tab: ${formatIpv4Address(packet.dst)} is not the page (${formatIpv4Address(localIp)})`);
      return;
    }
    if (!listeners.has(seg.dstPort)) {
      refuseSyn(packet, seg, `no route out of the tab: nothing listens on ${formatIpv4Address(localIp)}:${seg.dstPort}`);
      return;
    }
    if (connections.size >= config.maxConnections) {
      refuseSyn(packet, seg, `too many connections (${config.maxConnections}) to ${formatIpv4Address(localIp)}`);
      return;
    }
    const conn = new TcpConnection(host, `tcp-${nextId++}`, localIp, seg.dstPort, packet.src, seg.srcPort, seg, options.isn());
    connections.set(keyOf(seg.srcPort, seg.dstPort), conn);
  }

  return {
    listen(port, onAccept) {
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`not a TCP port: ${port}`);
      if (listeners.has(port)) throw new Error(`port ${port} already has a listener`);
      listeners.set(port, onAccept);
      return () => {
        if (listeners.get(port) === onAccept) listeners.delete(port);
      };
    },
    receive(packet) {
      const seg = parseTcpSegment(packet.payload, packet.src, packet.dst);
      counters.tcpSegmentsIn++;
      const isSyn = (seg.flags & (TCP_SYN | TCP_ACK | TCP_RST)) === TCP_SYN;
      let conn = packet.dst === localIp ? connections.get(keyOf(seg.srcPort, seg.dstPort)) : undefined;
      if (conn && conn.remoteIp !== packet.src) conn = undefined;
      // A new SYN on a port pair in TIME-WAIT (or a different SYN mid-handshake) starts afresh.
      if (conn && isSyn && (conn.state === "time-wait" || (conn.state === "syn-received" && seg.seq !== conn.irs))) {
        if (conn.state === "time-wait") conn.finish();
        else conn.reset("the guest started over with a new SYN", false);
        conn = undefined;
      }
      if (conn) conn.onSegment(seg);
      else if (isSyn) accept(packet, seg);
      else if (!(seg.flags & TCP_RST)) resetFor(packet, seg);
    },
    get connectionCount() {
      return connections.size;
    },
    connections() {
      return [...connections.values()].map((c) => ({
        id: c.id,
        remote: c.remote,
        localPort: c.localPort,
        state: c.state,
        bytesIn: c.bytesIn,
        bytesOut: c.bytesOut,
      }));
    },
    close() {
      listeners.clear();
      for (const conn of [...connections.values()]) conn.abort("the network peer closed");
      connections.clear();
    },
  };
}

const keyOf = (remotePort: number, localPort: number): number => remotePort * 65536 + localPort;

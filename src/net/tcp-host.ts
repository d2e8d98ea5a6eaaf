import type { Timers } from "../platform";
import type { NetCounters } from "./counters";
import type { TcpConnection } from "./tcp-connection";
import type { TcpHeaderFields } from "./tcp-segment";
import type { TcpStream } from "./tcp-stream";

/** TCP tunables. Defaults in DEFAULT_TCP_CONFIG; tests shrink them. */
export interface TcpConfig {
  /** Our MSS, advertised on SYN-ACK and the largest segment we send: MTU - 40. */
  mss: number;
  /** Bytes the readable side may queue for a slow consumer (the receive window, at most 65535). */
  receiveBuffer: number;
  /** Bytes the writable side buffers before write() waits (backpressure to the page). */
  sendBuffer: number;
  /** Bytes of out-of-order segments held for reassembly; more are dropped (the guest resends). */
  outOfOrderLimit: number;
  initialRtoMs: number;
  minRtoMs: number;
  maxRtoMs: number;
  /** Retransmissions of one segment without any ACK before the connection is reset. */
  maxRetransmits: number;
  delayedAckMs: number;
  timeWaitMs: number;
  /** Connections at once; SYNs past this are answered with RST. */
  maxConnections: number;
}

export const DEFAULT_TCP_CONFIG: TcpConfig = {
  mss: 1460,
  receiveBuffer: 65535,
  sendBuffer: 256 * 1024,
  outOfOrderLimit: 65535,
  initialRtoMs: 1000,
  minRtoMs: 200,
  maxRtoMs: 30_000,
  maxRetransmits: 10,
  delayedAckMs: 10,
  timeWaitMs: 1000,
  maxConnections: 1024,
};

/** What a connection needs from the TCP layer around it. */
export interface TcpHost {
  readonly config: TcpConfig;
  readonly timers: Timers;
  readonly counters: NetCounters;
  /** Builds and sends one segment; `fill` writes `payloadLength` bytes at the given offset. */
  transmit(
    conn: TcpConnection,
    header: TcpHeaderFields,
    payloadLength: number,
    fill: ((out: Uint8Array, offset: number) => void) | null,
  ): void;
  /** The handshake completed: hand the stream to the listener. */
  established(conn: TcpConnection, stream: TcpStream): void;
  /** The connection is gone: forget it and log how it ended. */
  closed(conn: TcpConnection, how: "close" | "reset", reason?: string): void;
}

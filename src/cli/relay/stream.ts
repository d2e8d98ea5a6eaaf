import { packet, server } from "@mercuryworkshop/wisp-js/server";
import { refuse, type Verdict } from "../../log";
import { GrantLedger, GrantSchedule } from "./grants";
import { FRAME_OVERHEAD_BYTES, FRAMES_GRANTED, type RelayLimits } from "./limits";
import type { RelaySocket } from "./socket";

/**
 * One Wisp stream, as wisp-js's ServerStream but bounded. wisp-js queues every DATA frame a
 * client sends whatever its CONTINUE grant, and waits on a full WebSocket by polling for ever;
 * here each frame is charged its bytes plus a fixed overhead against the stream's, the
 * WebSocket's and the relay's budget, a client past its grant (or a budget) is closed
 * ConnThrottled, what comes from the destination waits for room on the WebSocket (the
 * destination is paused meanwhile), and a stream with no traffic either way is closed
 * TransferTimeout.
 */

const { close_reasons } = packet;
const DATA = 0x02;
const CONTINUE = 0x03;

/** What a stream shares with its connection and the relay: budgets, the send path, closing. */
export interface StreamHost {
  readonly limits: RelayLimits;
  /** Inbound bytes queued (with frame overhead) on this WebSocket, and in the whole relay. */
  readonly inbound: { websocket: number };
  readonly relayInbound: { total: number };
  /** Sends one Wisp frame; resolves once the WebSocket has room again (or is gone). */
  sendFrame(frame: Uint8Array): Promise<void>;
  /** Sends a frame that must not wait (CONTINUE, CLOSE). */
  sendNow(frame: Uint8Array): void;
  closeStream(streamId: number, reason: number): void;
}

export class RelayStream extends server.ServerStream {
  private queuedBytes = 0;
  private readonly queuedCosts: number[] = [];
  private readonly grants = new GrantLedger(FRAMES_GRANTED);
  private readonly schedule = new GrantSchedule(FRAMES_GRANTED);
  private closed = false;
  private lastActive = performance.now();
  private idleTimer: NodeJS.Timeout;

  constructor(
    streamId: number,
    conn: server.ServerConnection,
    readonly relaySocket: RelaySocket,
    private readonly host: StreamHost,
  ) {
    super(streamId, conn, relaySocket);
    this.idleTimer = this.armIdle(host.limits.idleTimeoutMs);
  }

  /** A DATA frame from the client: queued if within its grant and every budget, else the stream is throttled. */
  override async put_data(data: Uint8Array): Promise<void> {
    if (this.closed) return;
    const { limits, inbound, relayInbound } = this.host;
    const cost = data.byteLength + FRAME_OVERHEAD_BYTES;
    const over = !this.grants.receive()
      ? `the client sent ${this.grants.received} frames (${this.queuedCosts.length + 1} of them frames the destination has not taken), past its CONTINUE grant of ${FRAMES_GRANTED} at a time (${this.grants.granted} granted in all)`
      : this.queuedBytes + cost > limits.inboundBytesPerStream
        ? `the stream's queued bytes would pass ${limits.inboundBytesPerStream} (frames count ${FRAME_OVERHEAD_BYTES} bytes each besides their payload)`
        : inbound.websocket + cost > limits.inboundBytesPerWebsocket
          ? `the WebSocket's queued bytes would pass ${limits.inboundBytesPerWebsocket}`
          : relayInbound.total + cost > limits.inboundBytesTotal
            ? `the relay's queued bytes would pass ${limits.inboundBytesTotal}`
            : null;
    if (over !== null) return this.throttle(refuse("too-large", `${over}; the stream was closed (ConnThrottled)`, "proxy"));
    this.queuedBytes += cost;
    this.queuedCosts.push(cost);
    inbound.websocket += cost;
    relayInbound.total += cost;
    this.lastActive = performance.now();
    this.send_buffer.put_now(data);
    this.schedule.received();
    this.grantIfDue();
  }

  /** Sends the next CONTINUE when the schedule says so (grants.ts, GrantSchedule). */
  private grantIfDue(): void {
    if (this.closed) return;
    const frames = this.schedule.due(this.send_buffer.size);
    if (frames === null) return;
    this.grants.grant(frames);
    this.host.sendNow(frame(CONTINUE, this.stream_id, u32(frames)));
  }

  /** Client to destination: one frame at a time; a CONTINUE when the schedule says so (grantIfDue). */
  override async ws_to_tcp(): Promise<void> {
    for (;;) {
      const data = await this.send_buffer.get();
      if (data === undefined || data === null || this.closed) break;
      this.release(this.queuedCosts.shift() ?? 0);
      await this.socket.send(data);
      this.lastActive = performance.now();
      this.packets_sent++;
      this.grantIfDue();
    }
    await this.close();
  }

  /** Destination to client: each chunk waits for room on the WebSocket; the socket holds the rest, paused. */
  override async tcp_to_ws(): Promise<void> {
    for (;;) {
      const data = await this.socket.recv();
      if (data === null || this.closed) break;
      this.lastActive = performance.now();
      await this.host.sendFrame(frame(DATA, this.stream_id, data));
    }
    // A destination that reset the connection is not one that closed it: NetworkError, not Voluntary.
    if (!this.closed) this.host.closeStream(this.stream_id, this.relaySocket.failed ? close_reasons.NetworkError : close_reasons.Voluntary);
  }

  override async close(reason: number | null = null): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.release(this.queuedBytes);
    this.queuedCosts.length = 0;
    this.send_buffer.close();
    await this.socket.close();
    if (reason !== null) this.host.sendNow(frame(0x04, this.stream_id, Uint8Array.of(reason)));
  }

  private throttle(verdict: Verdict, reason = close_reasons.ConnThrottled): void {
    this.relaySocket.endedBy(verdict);
    this.host.closeStream(this.stream_id, reason);
  }

  private release(cost: number): void {
    this.queuedBytes -= cost;
    this.host.inbound.websocket -= cost;
    this.host.relayInbound.total -= cost;
  }

  /** One timer per stream, re-armed for what is left rather than reset on every frame. */
  private armIdle(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (this.closed) return;
      const quiet = performance.now() - this.lastActive;
      const limit = this.host.limits.idleTimeoutMs;
      if (quiet + 1 >= limit)
        this.throttle(
          refuse(
            "request-timeout",
            `no traffic either way for ${Math.round(limit / 1000)} s; the stream was closed (TransferTimeout)`,
            "proxy",
          ),
          close_reasons.TransferTimeout,
        );
      else this.idleTimer = this.armIdle(limit - quiet);
    }, ms);
    timer.unref();
    return timer;
  }
}

/** A Wisp frame: type, stream id (LE), payload. Not zero-filled first: every byte is written here. */
export function frame(type: number, streamId: number, payload: Uint8Array): Uint8Array {
  const bytes = Buffer.allocUnsafe(5 + payload.byteLength);
  bytes[0] = type;
  bytes.writeUInt32LE(streamId, 1);
  bytes.set(payload, 5);
  return bytes;
}

function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, Math.max(0, value), true);
  return bytes;
}

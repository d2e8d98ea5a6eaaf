import { type ConnectionOptions, packet, server } from "@mercuryworkshop/wisp-js/server";
import type { WebSocket } from "ws";
import { refuse, type Verdict } from "../../log";
import type { Admitter } from "./admission";
import type { StreamCheck } from "./check";
import type { RelayLimits } from "./limits";
import type { StreamRecord } from "./record";
import { RelaySocket, StreamRefused } from "./socket";
import { RelayStream, type StreamHost } from "./stream";

/**
 * One Wisp connection (one WebSocket): wisp-js's ServerConnection does the protocol (v1/v2
 * handshake, framing, CLOSE), and this subclass replaces how a stream is opened and carried.
 * wisp-js's own `create_stream` runs its filter, which resolves the name by itself (cached),
 * checks one address against its own ranges, and then lets its socket resolve again; none of
 * that runs here. Each stream gets a RelaySocket, which runs the relay's check and connects to
 * the checked address, inside a RelayStream, which bounds what it holds (stream.ts). A stream
 * past a cap (streams per WebSocket, in all, opened per second) is closed ConnThrottled without
 * a check; a refusal, or a name that does not resolve, HostBlocked.
 */

export interface RelayContext {
  check: StreamCheck;
  report: (record: StreamRecord) => void;
  /** Every stream socket not yet gone, so shutdown can wait for them. */
  sockets: Set<RelaySocket>;
  limits: RelayLimits;
  admitter: Admitter;
  /** Inbound bytes queued in the whole relay. */
  relayInbound: { total: number };
}

const { close_reasons, stream_types } = packet;

export class RelayConnection extends server.ServerConnection implements StreamHost {
  readonly limits: RelayLimits;
  readonly inbound = { websocket: 0 };
  readonly relayInbound: { total: number };
  private roomWaiters: (() => void)[] = [];
  /**
   * Every send's completion looks for room while a stream waits for it: a full WebSocket wakes
   * its streams as soon as half is sent, not at a timer's next tick (which left a loopback
   * link idle most of the time).
   */
  private readonly afterSend = (): void => {
    if (this.roomWaiters.length > 0) this.checkRoom();
  };

  constructor(
    readonly socket: WebSocket,
    path: string,
    options: ConnectionOptions,
    private readonly client: string,
    private readonly context: RelayContext,
  ) {
    super(socket, path, options);
    this.limits = context.limits;
    this.relayInbound = context.relayInbound;
    // wisp-js's own sends (its first CONTINUE) never wait: the relay's data path waits instead (sendFrame).
    this.ws.send_buffer_size = Number.POSITIVE_INFINITY;
  }

  override create_stream(streamId: number, type: number, hostname: string, port: number): void {
    // Stream 0 is the connection's own; a second CONNECT for a live id is a client bug. Ignored,
    // as wisp-js ignores other packets it cannot route.
    if (streamId === 0 || this.streams[streamId] !== undefined) return;
    const { limits, admitter } = this.context;
    const open = Object.keys(this.streams).length;
    const throttledBy: Verdict | undefined =
      open >= limits.streamsPerWebsocket
        ? refuse("too-many-connections", `this WebSocket already has ${open} streams open (at most ${limits.streamsPerWebsocket})`, "proxy")
        : admitter.streams.count >= limits.streamsTotal
          ? refuse(
              "too-many-connections",
              `the relay already has ${admitter.streams.count} streams open (at most ${limits.streamsTotal})`,
              "proxy",
            )
          : !admitter.takeStream(this.client)
            ? refuse(
                "too-many-connections",
                `${this.client} opened streams faster than ${limits.streamsPerSecond} a second (burst ${limits.streamBurst})`,
                "proxy",
              )
            : undefined;
    const socket = new RelaySocket({
      name: hostname,
      port,
      tcp: type === stream_types.TCP,
      check: this.context.check,
      report: this.context.report,
      connection: this.conn_id,
      stream: streamId,
      client: this.client,
      readAheadBytes: limits.outboundBytesPerStream,
      ...(throttledBy ? { throttledBy } : {}),
    });
    this.context.sockets.add(socket);
    if (!throttledBy) admitter.streams.count++;
    void socket.done.then(() => {
      this.context.sockets.delete(socket);
      if (!throttledBy) admitter.streams.count--;
    });
    // Registered before the check, so DATA sent right after CONNECT waits in the stream's queue.
    const stream = new RelayStream(streamId, this, socket, this);
    this.streams[streamId] = stream;
    stream.setup().catch((error: unknown) => this.close_stream(streamId, closeReason(error)));
  }

  /**
   * As wisp-js's, but the stream is forgotten before its CLOSE is sent: wisp-js forgets it after,
   * so the socket's end, which also asks to close the stream, sent the client a second CLOSE.
   */
  override async close_stream(streamId: number | string, reason: number | null = null): Promise<void> {
    const stream = this.streams[streamId];
    if (stream === undefined) return;
    delete this.streams[streamId];
    await stream.close(reason);
  }

  closeStream(streamId: number, reason: number): void {
    void this.close_stream(streamId, reason).catch(() => undefined);
  }

  /** Sends at once; a client that has stopped reading past the hard limit loses its WebSocket. */
  sendNow(frame: Uint8Array): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > this.limits.websocketSendLimit) {
      this.socket.terminate();
      return;
    }
    this.socket.send(frame, this.afterSend);
  }

  async sendFrame(frame: Uint8Array): Promise<void> {
    this.sendNow(frame);
    if (this.socket.bufferedAmount <= this.limits.websocketSendHighWater) return;
    await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /** Every stream closed with CLOSE (Voluntary), then the WebSocket with 1001 (going away). */
  async shutdown(): Promise<void> {
    for (const id of Object.keys(this.streams)) await this.close_stream(id, close_reasons.Voluntary);
    this.socket.close(1001, "the relay is shutting down");
  }

  override async cleanup(): Promise<void> {
    await super.cleanup();
    this.wakeAll();
  }

  private checkRoom(): void {
    const gone = this.socket.readyState !== this.socket.OPEN;
    if (gone || this.socket.bufferedAmount <= this.limits.websocketSendHighWater / 2) this.wakeAll();
  }

  private wakeAll(): void {
    for (const wake of this.roomWaiters.splice(0)) wake();
  }
}

/** The Wisp CLOSE reason for a stream whose connect failed. */
function closeReason(error: unknown): number {
  if (error instanceof StreamRefused) return error.throttled ? close_reasons.ConnThrottled : close_reasons.HostBlocked;
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case "ECONNREFUSED":
      return close_reasons.ConnRefused;
    case "ETIMEDOUT":
      return close_reasons.NoResponse;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return close_reasons.UnreachableHost;
    default:
      return close_reasons.NetworkError;
  }
}

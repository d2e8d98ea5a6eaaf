import { type ConnectionOptions, packet, server } from "@mercuryworkshop/wisp-js/server";
import type { WebSocket } from "ws";
import { refuse, type Verdict, type VerdictCode } from "../../log";
import type { Admitter } from "./admission";
import type { StreamCheck } from "./check";
import { MAX_MESSAGE_BYTES, type RelayLimits, UNSENT_PONGS_LIMIT } from "./limits";
import type { RelayRecord } from "./record";
import { RelaySocket, StreamRefused } from "./socket";
import { frame, RelayStream, type StreamHost } from "./stream";

/**
 * One Wisp connection (one WebSocket): wisp-js's ServerConnection does the protocol (v1/v2
 * handshake, framing, CLOSE), and this subclass replaces how a stream is opened and carried.
 * wisp-js's own `create_stream` runs its filter, which resolves the name by itself (cached),
 * checks one address against its own ranges, and then lets its socket resolve again; none of
 * that runs here. Each stream gets a RelaySocket, which runs the relay's check and connects to
 * the checked address, inside a RelayStream, which bounds what it holds (stream.ts). A stream
 * past a cap (streams per WebSocket, in all, opened per second) is closed ConnThrottled without
 * a check; a refusal, or a name that does not resolve, HostBlocked.
 *
 * Whatever one client sends ends at most its own WebSocket: ws's 'error' (a message past
 * MAX_MESSAGE_BYTES, text that is not UTF-8, a frame breaking RFC 6455) closes it with the
 * error's code, a failed v2 handshake with 1002, and each such end is one `relay.closed` line.
 */

export interface RelayContext {
  check: StreamCheck;
  report: (record: RelayRecord) => void;
  /** Every stream socket not yet gone, so shutdown can wait for them. */
  sockets: Set<RelaySocket>;
  limits: RelayLimits;
  admitter: Admitter;
  /** Inbound bytes queued in the whole relay. */
  relayInbound: { total: number };
}

const { close_reasons, stream_types } = packet;
const CONNECT = 0x01;
const INFO = 0x05;
/** A CONNECT's payload before its host name: stream type (1 byte), port (2 bytes). */
const CONNECT_HEAD_BYTES = 3;
/** WebSocket close codes (RFC 6455 7.4.1). */
const WS_PROTOCOL_ERROR = 1002;
const WS_INVALID_DATA = 1007;
const WS_MESSAGE_TOO_BIG = 1009;

/** The close code ws sent with an 'error' (it closes the WebSocket before it emits). */
function websocketErrorStatus(error: NodeJS.ErrnoException): number {
  switch (error.code) {
    case "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH":
    case "WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH":
      return WS_MESSAGE_TOO_BIG;
    case "WS_ERR_INVALID_UTF8":
      return WS_INVALID_DATA;
    default:
      return WS_PROTOCOL_ERROR;
  }
}

/** Why a Wisp v2 handshake failed: the WebSocket is closed 1002. */
export class HandshakeFailed extends Error {
  override name = "HandshakeFailed";
}

export class RelayConnection extends server.ServerConnection implements StreamHost {
  readonly limits: RelayLimits;
  readonly inbound = { websocket: 0 };
  readonly relayInbound: { total: number };
  private roomWaiters: (() => void)[] = [];
  /** The relay ended this WebSocket and printed its line (one per WebSocket). */
  private ended = false;
  private unsentPongs = 0;
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
    // Without a listener, one bad message from one client ended the process (ws emits 'error').
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const status = websocketErrorStatus(error);
      const what =
        status === WS_MESSAGE_TOO_BIG
          ? `the client sent a message larger than ${MAX_MESSAGE_BYTES} bytes`
          : `the client broke the WebSocket protocol (${error.message})`;
      this.endedWith(
        status,
        status === WS_MESSAGE_TOO_BIG ? "too-large" : "malformed-frame",
        `${what}; its WebSocket was closed ${status}`,
      );
    });
    // Pongs are sent here (the server sets autoPong off): a client that pings and never reads is cut.
    socket.on("ping", (data: Buffer) => this.pong(data));
  }

  /**
   * Wisp v2: the server's INFO (version 2.0, no extensions: no UDP, no MOTD), then the client's
   * INFO must be its first message. wisp-js's own closed the WebSocket without a code and threw
   * a TypeError on a message too short; here any other first message is a HandshakeFailed.
   */
  override async setup_wisp_v2(): Promise<void> {
    this.ws.send(Uint8Array.of(INFO, 0, 0, 0, 0, 2, 0));
    const data = await this.ws.recv();
    if (data === undefined) throw new HandshakeFailed("the WebSocket closed before the client's INFO");
    if (typeof data === "string") throw new HandshakeFailed("the client's first message was text, not its INFO");
    const bytes = new Uint8Array(data);
    if (bytes.length < 7 || bytes[0] !== INFO)
      throw new HandshakeFailed(`the client's first message was not an INFO packet (type ${bytes[0] ?? "none"}, ${bytes.length} bytes)`);
  }

  /** A CONNECT too short to name a host gets CLOSE InvalidInfo, rather than no answer. */
  override route_packet(buffer: { bytes: Uint8Array }): void {
    const { bytes } = buffer;
    if (bytes.length >= 5 && bytes[0] === CONNECT && bytes.length < 5 + CONNECT_HEAD_BYTES) {
      const streamId = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1, true);
      if (streamId !== 0 && this.streams[streamId] === undefined)
        this.sendNow(frame(0x04, streamId, Uint8Array.of(close_reasons.InvalidInfo)));
      return;
    }
    super.route_packet(buffer);
  }

  /** Closes the WebSocket for a failed v2 handshake (1002), with its line. */
  handshakeFailed(error: unknown): void {
    if (this.socket.readyState !== this.socket.OPEN) return; // gone already (its line, if any, printed)
    const why = error instanceof HandshakeFailed ? error.message : `the handshake failed: ${String(error)}`;
    this.endedWith(WS_PROTOCOL_ERROR, "malformed-frame", `${why}; the WebSocket was closed ${WS_PROTOCOL_ERROR}`);
    this.socket.close(WS_PROTOCOL_ERROR, "Wisp v2 handshake failed");
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
    stream.setup().catch((error: unknown) => this.closeStream(streamId, closeReason(error)));
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
      this.cut(`the client stopped reading: more than ${this.limits.websocketSendLimit} bytes unsent`);
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

  private pong(data: Buffer): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.unsentPongs >= UNSENT_PONGS_LIMIT) {
      this.cut(`the client sent pings without reading the pongs (${UNSENT_PONGS_LIMIT} unsent)`);
      return;
    }
    this.unsentPongs++;
    this.socket.pong(data, undefined, () => {
      this.unsentPongs--;
    });
  }

  /** A client that does not read gets no close frame: its connection is cut. */
  private cut(why: string): void {
    this.endedWith(null, "too-large", `${why}; its WebSocket was cut`);
    this.socket.terminate();
  }

  private endedWith(status: number | null, code: VerdictCode, why: string): void {
    if (this.ended) return;
    this.ended = true;
    this.context.report({
      kind: "relay.closed",
      time: new Date().toISOString(),
      client: this.client,
      connection: this.conn_id,
      status,
      code,
      why,
    });
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

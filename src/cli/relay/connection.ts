import { type ConnectionOptions, packet, server } from "@mercuryworkshop/wisp-js/server";
import type { WebSocket } from "ws";
import type { StreamCheck } from "./check";
import type { StreamRecord } from "./record";
import { RelaySocket, StreamRefused } from "./socket";

/**
 * One Wisp connection (one WebSocket): wisp-js's ServerConnection does the protocol (v1/v2
 * handshake, framing, CONTINUE flow control, CLOSE), and this subclass replaces only how a
 * stream is opened. wisp-js's own `create_stream` runs its filter, which resolves the name by
 * itself (cached), checks one address against its own ranges, and then lets its socket resolve
 * again; none of that runs here. Each stream gets a RelaySocket, which runs the relay's check
 * and connects to the checked address. A refusal closes the stream HostBlocked.
 */

export interface RelayContext {
  check: StreamCheck;
  report: (record: StreamRecord) => void;
  /** Every stream socket not yet gone, so shutdown can wait for them. */
  sockets: Set<RelaySocket>;
}

const { close_reasons, stream_types } = packet;

export class RelayConnection extends server.ServerConnection {
  constructor(
    readonly socket: WebSocket,
    path: string,
    options: ConnectionOptions,
    private readonly client: string,
    private readonly context: RelayContext,
  ) {
    super(socket, path, options);
  }

  override create_stream(streamId: number, type: number, hostname: string, port: number): void {
    // Stream 0 is the connection's own; a second CONNECT for a live id is a client bug. Ignored,
    // as wisp-js ignores other packets it cannot route.
    if (streamId === 0 || this.streams[streamId] !== undefined) return;
    const socket = new RelaySocket({
      name: hostname,
      port,
      tcp: type === stream_types.TCP,
      check: this.context.check,
      report: this.context.report,
      connection: this.conn_id,
      stream: streamId,
      client: this.client,
    });
    this.context.sockets.add(socket);
    void socket.done.then(() => this.context.sockets.delete(socket));
    // Registered before the check, so DATA sent right after CONNECT waits in the stream's buffer.
    const stream = new server.ServerStream(streamId, this, socket);
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

  /** Every stream closed with CLOSE (Voluntary), then the WebSocket with 1001 (going away). */
  async shutdown(): Promise<void> {
    for (const id of Object.keys(this.streams)) await this.close_stream(id, close_reasons.Voluntary);
    this.socket.close(1001, "the relay is shutting down");
  }
}

/** The Wisp CLOSE reason for a stream whose connect failed. */
function closeReason(error: unknown): number {
  if (error instanceof StreamRefused) return close_reasons.HostBlocked;
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

/**
 * Types for the parts of `@mercuryworkshop/wisp-js` (plain JavaScript, no typings) that the relay
 * and its tests use. Written from its source (src/server/connection.mjs, src/client/connection.mjs,
 * src/packet.mjs, src/logging.mjs) at the pinned version; a new version must be re-read.
 */

declare module "@mercuryworkshop/wisp-js/server" {
  import type { WebSocket } from "ws";

  /** What a stream's socket must do: the shape of wisp-js's own NodeTCPSocket. */
  export interface WispSocket {
    hostname: string;
    port: number;
    connect(): Promise<void>;
    /** The next chunk from the destination; null once it is done (wisp-js then sends CLOSE). */
    recv(): Promise<Uint8Array | null>;
    send(data: Uint8Array): Promise<void>;
    close(): Promise<void>;
    pause(): void;
    resume(): void;
  }

  export interface ConnectionOptions {
    ping_interval?: number;
    wisp_version?: 1 | 2;
    /** Wisp v2 extensions offered; an empty list offers none (no UDP, no MOTD). */
    wisp_extensions?: readonly unknown[];
  }

  /** wisp-js's async FIFO (src/websocket.mjs); `get` resolves undefined once closed. */
  export interface AsyncQueue<T> {
    readonly size: number;
    put_now(item: T): void;
    get(): Promise<T | undefined>;
    close(): void;
  }

  /** wisp-js's wrapper around the WebSocket; `send` waits while more than `send_buffer_size` is unsent. */
  export interface AsyncWebSocket {
    send_buffer_size: number;
    send(data: Uint8Array): Promise<void>;
    /** The next message (an ArrayBuffer, or a string for a text frame); undefined once closed. */
    recv(): Promise<ArrayBuffer | string | undefined>;
  }

  export namespace server {
    class ServerStream {
      static buffer_size: number;
      constructor(stream_id: number, conn: ServerConnection, socket: WispSocket);
      readonly stream_id: number;
      readonly socket: WispSocket;
      readonly conn: ServerConnection;
      /** DATA from the client waiting for the destination. */
      readonly send_buffer: AsyncQueue<Uint8Array>;
      packets_sent: number;
      setup(): Promise<void>;
      /** Called (not awaited) for each DATA frame from the client. */
      put_data(data: Uint8Array): Promise<void>;
      tcp_to_ws(): Promise<void>;
      ws_to_tcp(): Promise<void>;
      close(reason?: number | null): Promise<void>;
    }

    class ServerConnection {
      constructor(ws: WebSocket, path: string, options?: ConnectionOptions);
      readonly conn_id: string;
      readonly path: string;
      readonly ws: AsyncWebSocket;
      streams: Record<string, ServerStream>;
      setup(): Promise<void>;
      /** Sends the server's INFO and reads the client's (Wisp v2 only); called by setup(). */
      setup_wisp_v2(): Promise<void>;
      run(): Promise<void>;
      /** One client message: parsed, then routed; a message that does not parse throws (run() drops it). */
      route_packet(buffer: { bytes: Uint8Array }): void;
      cleanup(): Promise<void>;
      create_stream(stream_id: number, type: number, hostname: string, port: number): void;
      /** Sends CLOSE with `reason` (none when null), closes the socket, forgets the stream. */
      close_stream(stream_id: number | string, reason?: number | null, quiet?: boolean): Promise<void>;
    }
  }

  export namespace packet {
    const stream_types: { readonly TCP: number; readonly UDP: number };
    const close_reasons: {
      readonly Unknown: number;
      readonly Voluntary: number;
      readonly NetworkError: number;
      readonly InvalidInfo: number;
      readonly UnreachableHost: number;
      readonly NoResponse: number;
      readonly ConnRefused: number;
      readonly TransferTimeout: number;
      readonly HostBlocked: number;
      readonly ConnThrottled: number;
    };
  }

  export namespace logging {
    const DEBUG: number;
    const INFO: number;
    const WARN: number;
    const ERROR: number;
    const NONE: number;
    function set_level(level: number): void;
  }
}

declare module "@mercuryworkshop/wisp-js/client" {
  export namespace client {
    class ClientStream {
      readonly stream_id: number;
      onopen: () => void;
      onmessage: (data: Uint8Array) => void;
      onclose: (reason: number) => void;
      send(data: Uint8Array): void;
      close(reason?: number): void;
    }

    class ClientConnection {
      constructor(url: string, options?: { wisp_version?: 1 | 2 });
      onopen: () => void;
      onclose: () => void;
      onerror: () => void;
      create_stream(hostname: string, port: number, type?: "tcp" | "udp" | number): ClientStream;
      close(): void;
    }
  }
}

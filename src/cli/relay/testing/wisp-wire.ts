import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";

/**
 * A bounded Wisp v1 client for tests and the bench, written on a bare TCP socket so that it
 * controls every byte: which Origin (or none) the upgrade carries, and how many frames go out
 * in one write (a flood is one large write, as a hostile client would send it). A Wisp frame is
 * 1 byte type, 4 bytes stream id (little-endian), payload; each goes in one masked WebSocket
 * binary message.
 */

export const WISP = { CONNECT: 0x01, DATA: 0x02, CONTINUE: 0x03, CLOSE: 0x04, INFO: 0x05 } as const;
export const CLOSE_REASON = {
  Voluntary: 0x02,
  NetworkError: 0x03,
  InvalidInfo: 0x41,
  UnreachableHost: 0x42,
  ConnRefused: 0x44,
  TransferTimeout: 0x47,
  HostBlocked: 0x48,
  ConnThrottled: 0x49,
} as const;

export interface WireOptions {
  /** The Origin header; null sends none. Default: a playground page on loopback. */
  origin?: string | null;
  headers?: Record<string, string>;
  /**
   * Speak Wisp v2: offer a subprotocol, and answer the relay's INFO with this first message
   * (default: an INFO for version 2.0 with no extensions).
   */
  wispV2?: { firstMessage?: Buffer };
}

/** The WebSocket ended before the relay's first CONTINUE: with the close code it sent, if any. */
export class ClosedBeforeReady extends Error {
  constructor(readonly closeCode: number | null) {
    super(`the WebSocket closed before the first CONTINUE (close code ${closeCode ?? "none"})`);
  }
}

export const PLAYGROUND_ORIGIN = "http://127.0.0.1:4173";

/** Why an upgrade failed: the relay's HTTP status and body. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`the relay answered ${status}: ${body.trim()}`);
  }
}

export interface WireStream {
  id: number;
  /** Everything received so far. */
  received(): Buffer;
  receivedBytes(): number;
  /** Resolves once at least `bytes` were received (rejects if the stream closes first). */
  receivedAtLeast(bytes: number): Promise<Buffer>;
  /** The CLOSE reason the relay sent. */
  closed: Promise<number>;
  /** CONTINUE grants received for this stream. */
  continues: number[];
  send(data: Uint8Array): void;
  close(reason?: number): void;
}

export interface WireConnection {
  socket: Socket;
  /** The first CONTINUE's grant (stream 0). */
  granted: number;
  /** Opens a stream; a host given as bytes is sent as they are (not UTF-8 encoded). */
  open(host: string | Uint8Array, port: number): WireStream;
  /** Many DATA frames for one stream in one TCP write, whatever the grant. */
  flood(stream: WireStream, frames: number, payload: Uint8Array): void;
  /** Many CONNECTs in one TCP write; their streams. */
  openMany(host: string, port: number, count: number): WireStream[];
  /** Opens a stream with the id given (the next ids are not changed). */
  openWithId(id: number, host: string | Uint8Array, port: number): WireStream;
  /** Listens for stream `id` (its DATA and CLOSE) without sending anything. */
  track(id: number): WireStream;
  /** One Wisp frame in one binary message, whatever its type, id and payload. */
  sendFrame(type: number, id: number, payload: Uint8Array): void;
  /** One WebSocket message of any opcode (2 binary, 1 text, 9 ping), its payload as given. */
  sendMessage(payload: Uint8Array, opcode?: number): void;
  /** Many copies of one WebSocket message in few large writes (a flood). */
  sendMessages(payload: Uint8Array, count: number, opcode?: number): void;
  /** The close code the relay sent (null if it sent none); resolves when the connection ends. */
  closeCode: Promise<number | null>;
  /** Stops reading: the relay's sends back up. */
  stopReading(): void;
  /** Resolves when the TCP connection is gone. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a WebSocket to `url` and waits for the relay's first CONTINUE; rejects with UpgradeRefused on an HTTP refusal. */
export function openWire(url: string, options: WireOptions = {}): Promise<WireConnection> {
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  const key = randomBytes(16).toString("base64");
  const origin = options.origin === undefined ? PLAYGROUND_ORIGIN : options.origin;
  const lines = [
    `GET ${target.pathname}${target.search} HTTP/1.1`,
    `Host: ${target.host}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${key}`,
    "Sec-WebSocket-Version: 13",
    ...(origin === null ? [] : [`Origin: ${origin}`]),
    ...(options.wispV2 ? ["Sec-WebSocket-Protocol: wisp-v2"] : []),
    ...Object.entries(options.headers ?? {}).map(([n, v]) => `${n}: ${v}`),
  ];
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  const streams = new Map<number, StreamState>();
  let nextId = 1;
  let buffer = Buffer.alloc(0);
  let upgraded = false;
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => undefined);
  let closeCode: number | null = null;

  return new Promise((resolve, reject) => {
    let connection: WireConnection | null = null;
    void ended.then(() => {
      if (!upgraded) reject(new UpgradeRefused(0, `the connection closed: ${buffer.toString("latin1").slice(0, 200)}`));
      else if (connection === null) reject(new ClosedBeforeReady(closeCode));
      for (const state of streams.values()) state.end(-1);
    });
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1");
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
        if (status !== 101) {
          socket.once("end", () => reject(new UpgradeRefused(status, buffer.subarray(end + 4).toString("utf8"))));
          return;
        }
        upgraded = true;
        buffer = buffer.subarray(end + 4);
      }
      for (;;) {
        const message = nextMessage();
        if (message === null) break;
        if (message.opcode === 8 && closeCode === null) {
          closeCode = message.payload.length >= 2 ? message.payload.readUInt16BE(0) : 1005;
          socket.end(wsFrame(Buffer.from(message.payload.subarray(0, 2)), 8)); // as a client does: the close echoed, then FIN
        }
        if (message.opcode !== 2 || message.payload.length < 5) continue;
        const type = message.payload[0];
        const id = message.payload.readUInt32LE(1);
        const body = message.payload.subarray(5);
        if (type === WISP.INFO && id === 0 && connection === null && options.wispV2)
          socket.write(wsFrame(options.wispV2.firstMessage ?? wispFrame(WISP.INFO, 0, Uint8Array.of(2, 0))));
        else if (type === WISP.CONTINUE && id === 0 && connection === null) {
          connection = makeConnection(body.readUInt32LE(0));
          resolve(connection);
        } else if (type === WISP.CONTINUE) streams.get(id)?.stream.continues.push(body.readUInt32LE(0));
        else if (type === WISP.DATA) streams.get(id)?.data(body);
        else if (type === WISP.CLOSE) streams.get(id)?.end(body[0] ?? 0);
      }
    });

    function nextMessage(): { opcode: number; payload: Buffer } | null {
      if (buffer.length < 2) return null;
      const opcode = (buffer[0] as number) & 0x0f;
      let length = (buffer[1] as number) & 0x7f;
      let at = 2;
      if (length === 126) {
        if (buffer.length < 4) return null;
        length = buffer.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return null;
        length = Number(buffer.readBigUInt64BE(2));
        at = 10;
      }
      if (buffer.length < at + length) return null;
      const payload = buffer.subarray(at, at + length);
      buffer = buffer.subarray(at + length);
      return { opcode, payload };
    }
  });

  /** `count` copies of one WebSocket frame, written in slices of at most 1 MiB, each in one write. */
  function sendMany(one: Buffer, count: number): void {
    const perWrite = Math.max(1, Math.floor((1024 * 1024) / one.length));
    for (let sent = 0; sent < count; sent += perWrite)
      socket.write(Buffer.concat(Array.from({ length: Math.min(perWrite, count - sent) }, () => one)));
  }

  function makeConnection(granted: number): WireConnection {
    const make = (host: string | Uint8Array, port: number, id = nextId++): { stream: WireStream; frame: Buffer } => {
      const state = streamState(id);
      streams.set(id, state);
      return { stream: state.stream, frame: wsFrame(wispFrame(WISP.CONNECT, id, connectPayload(host, port))) };
    };
    const streamState = (id: number): StreamState => {
      const chunks: Buffer[] = [];
      let total = 0;
      let closedWith: number | null = null;
      const waiters: (() => void)[] = [];
      let settle: (reason: number) => void = () => undefined;
      const closed = new Promise<number>((r) => {
        settle = r;
      });
      const stream: WireStream = {
        id,
        received: () => Buffer.concat(chunks),
        receivedBytes: () => total,
        async receivedAtLeast(bytes) {
          while (total < bytes) {
            if (closedWith !== null) throw new Error(`the stream closed (${closedWith}) after ${total} of ${bytes} bytes`);
            await new Promise<void>((r) => waiters.push(r));
          }
          return Buffer.concat(chunks);
        },
        closed,
        continues: [],
        send: (data) => socket.write(wsFrame(wispFrame(WISP.DATA, id, data))),
        close: (reason = CLOSE_REASON.Voluntary) => socket.write(wsFrame(wispFrame(WISP.CLOSE, id, Uint8Array.of(reason)))),
      };
      return {
        stream,
        data(body) {
          chunks.push(Buffer.from(body));
          total += body.length;
          for (const wake of waiters.splice(0)) wake();
        },
        end(reason) {
          if (closedWith !== null) return;
          closedWith = reason;
          settle(reason);
          for (const wake of waiters.splice(0)) wake();
        },
      };
    };
    return {
      socket,
      granted,
      open(host, port) {
        const { stream, frame } = make(host, port);
        socket.write(frame);
        return stream;
      },
      flood: (stream, frames, payload) => sendMany(wsFrame(wispFrame(WISP.DATA, stream.id, payload)), frames),
      openMany(host, port, count) {
        const made = Array.from({ length: count }, () => make(host, port));
        socket.write(Buffer.concat(made.map((m) => m.frame)));
        return made.map((m) => m.stream);
      },
      openWithId(id, host, port) {
        const { stream, frame } = make(host, port, id);
        socket.write(frame);
        return stream;
      },
      track(id) {
        const state = streamState(id);
        streams.set(id, state);
        return state.stream;
      },
      sendFrame: (type, id, payload) => socket.write(wsFrame(wispFrame(type, id, payload))),
      sendMessage: (payload, opcode = 2) => socket.write(wsFrame(Buffer.from(payload), opcode)),
      sendMessages: (payload, count, opcode = 2) => sendMany(wsFrame(Buffer.from(payload), opcode), count),
      closeCode: ended.then(() => closeCode),
      stopReading: () => socket.pause(),
      ended,
      close: () => socket.destroy(),
    };
  }
}

interface StreamState {
  stream: WireStream;
  data(body: Buffer): void;
  end(reason: number): void;
}

/** A CONNECT's payload: TCP, the port (LE), the host name (UTF-8, or bytes as given). */
export function connectPayload(host: string | Uint8Array, port: number): Buffer {
  const name = typeof host === "string" ? Buffer.from(host) : Buffer.from(host);
  const payload = Buffer.alloc(3 + name.length);
  payload[0] = 0x01; // TCP
  payload.writeUInt16LE(port, 1);
  name.copy(payload, 3);
  return payload;
}

/** A Wisp frame: type, stream id (LE), payload. Not zero-filled first: every byte is written. */
export function wispFrame(type: number, id: number, payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + payload.length);
  frame[0] = type;
  frame.writeUInt32LE(id, 1);
  frame.set(payload, 5);
  return frame;
}

/**
 * One masked WebSocket frame (a client's frames must be masked): a whole binary message unless
 * told (another opcode; a fragment that is not the last, fin false).
 */
export function wsFrame(payload: Buffer, opcode = 2, fin = true): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = (fin ? 0x80 : 0) | opcode;
  if (length < 126) header[1] = 0x80 | length;
  else if (length < 65536) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  // A zero mask: masking is required, its value is not (the bytes pass unchanged).
  return Buffer.concat([header, Buffer.alloc(4), payload]);
}

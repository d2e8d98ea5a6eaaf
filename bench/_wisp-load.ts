import { createServer, type Server, type Socket } from "node:net";
import { WebSocket } from "ws";
import { wispFrame as frame, WISP } from "../src/cli/relay/testing/wisp-wire";

/**
 * What bench/relay-throughput.ts drives two Wisp servers with, identically: a lean Wisp v1
 * client on `ws` (it sends the Origin a playground page would, keeps to the server's CONTINUE
 * grants, and only counts what it receives) and one loopback upstream that does what each
 * stream's first five bytes ask (an op and a 32-bit count).
 */

export const OP = { download: 0x44, upload: 0x55, echo: 0x45, hold: 0x48 } as const;
/**
 * What the client lets wait in its own WebSocket before it stops sending: small, so that its
 * frames in flight stay near one grant, as a browser's Wisp client keeps them.
 */
const SEND_BUFFER_BYTES = 256 * 1024;
const { CONNECT, DATA, CONTINUE, CLOSE } = WISP;

/** The upstream's request: op, then a count (bytes to send, or to expect). */
export function request(op: number, count = 0): Buffer {
  const bytes = Buffer.alloc(5);
  bytes[0] = op;
  bytes.writeUInt32LE(count, 1);
  return bytes;
}

export interface LoadUpstream {
  port: number;
  close(): void;
}

/**
 * A TCP server on 127.0.0.1: `download N` writes N bytes and ends; `upload N` reads N bytes
 * and answers one byte; `echo` echoes; `hold` reads and says nothing (an idle stream).
 */
export async function loadUpstream(): Promise<LoadUpstream> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = Buffer.alloc(0);
    let op = 0;
    let left = 0;
    const onData = (data: Buffer) => {
      if (op === 0) {
        head = Buffer.concat([head, data]);
        if (head.length < 5) return;
        op = head[0] as number;
        left = head.readUInt32LE(1);
        data = head.subarray(5);
        if (op === OP.download) {
          const pump = () => {
            while (left > 0) {
              const n = Math.min(left, chunk.length);
              left -= n;
              if (!socket.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return;
            }
            socket.off("drain", pump);
            socket.end();
          };
          socket.on("drain", pump);
          pump();
          return;
        }
      }
      if (op === OP.echo && data.length > 0) socket.write(data);
      else if (op === OP.upload && left > 0) {
        left -= data.length;
        if (left <= 0) socket.write(Uint8Array.of(1));
      }
    };
    socket.on("data", onData);
    socket.on("end", () => socket.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

export interface LoadStream {
  id: number;
  received: number;
  /** Resolves once `bytes` in all were received, or rejects if the stream closes first. */
  receivedAtLeast(bytes: number): Promise<void>;
  /** The CLOSE reason. */
  closed: Promise<number>;
  /** Sends one DATA frame now if the grant allows, else queues it until a CONTINUE. */
  send(data: Uint8Array): void;
  /** Resolves when every queued frame went out (each waits for room on the WebSocket). */
  sent(): Promise<void>;
  close(): void;
}

export interface LoadConnection {
  open(port: number): LoadStream;
  close(): Promise<void>;
}

interface StreamState {
  stream: LoadStream;
  credit: number;
  queue: Uint8Array[];
  flushed: (() => void)[];
  waiters: { bytes: number; resolve: () => void; reject: (e: Error) => void }[];
  end(reason: number): void;
  drain(): void;
}

/** Opens a Wisp v1 connection to `url`; resolves on the server's first CONTINUE. */
export function openLoadConnection(url: string, origin: string): Promise<LoadConnection> {
  const ws = new WebSocket(url, { origin, perMessageDeflate: false });
  const streams = new Map<number, StreamState>();
  let nextId = 1;
  let grant = 0;

  const make = (): LoadConnection => ({
    open(port) {
      const id = nextId++;
      const name = Buffer.from("127.0.0.1");
      const payload = Buffer.alloc(3 + name.length);
      payload[0] = 0x01; // TCP
      payload.writeUInt16LE(port, 1);
      name.copy(payload, 3);
      let settle: (reason: number) => void = () => undefined;
      let closedWith: number | null = null;
      const state: StreamState = {
        credit: grant,
        queue: [],
        flushed: [],
        waiters: [],
        stream: {
          id,
          received: 0,
          receivedAtLeast(bytes) {
            if (state.stream.received >= bytes) return Promise.resolve();
            if (closedWith !== null)
              return Promise.reject(new Error(`stream ${id} closed (${closedWith}) after ${state.stream.received} of ${bytes} bytes`));
            return new Promise((resolve, reject) => state.waiters.push({ bytes, resolve, reject }));
          },
          closed: new Promise<number>((resolve) => {
            settle = resolve;
          }),
          send(data) {
            if (closedWith !== null) return;
            state.queue.push(data);
            state.drain();
          },
          async sent() {
            if (state.queue.length > 0 && closedWith === null) await new Promise<void>((resolve) => state.flushed.push(resolve));
            while (closedWith === null && ws.readyState === ws.OPEN && ws.bufferedAmount >= 1024 * 1024)
              await new Promise((r) => setTimeout(r, 1));
          },
          close() {
            if (closedWith !== null) return;
            ws.send(frame(CLOSE, id, Uint8Array.of(0x02)));
            state.end(0x02);
          },
        },
        end(reason) {
          if (closedWith !== null) return;
          closedWith = reason;
          streams.delete(id);
          settle(reason);
          for (const w of state.waiters.splice(0))
            w.reject(new Error(`stream ${id} closed (${reason}) after ${state.stream.received} bytes`));
          for (const f of state.flushed.splice(0)) f();
        },
        drain() {
          while (state.credit > 0 && state.queue.length > 0 && ws.bufferedAmount < SEND_BUFFER_BYTES) {
            ws.send(frame(DATA, id, state.queue.shift() as Uint8Array));
            state.credit--;
          }
          if (state.queue.length > 0 && state.credit > 0) setTimeout(() => state.drain(), 1);
          else if (state.queue.length === 0) for (const f of state.flushed.splice(0)) f();
        },
      };
      streams.set(id, state);
      ws.send(frame(CONNECT, id, payload));
      return state.stream;
    },
    close() {
      return new Promise<void>((resolve) => {
        if (ws.readyState === ws.CLOSED) return resolve();
        ws.once("close", () => resolve());
        ws.close();
        setTimeout(() => ws.terminate(), 2_000).unref();
      });
    },
  });

  return new Promise((resolve, reject) => {
    let connection: LoadConnection | null = null;
    ws.on("error", (error) => {
      if (connection === null) reject(error);
    });
    ws.on("close", () => {
      for (const state of [...streams.values()]) state.end(-1);
    });
    ws.on("message", (message: Buffer) => {
      const type = message[0];
      const id = message.readUInt32LE(1);
      if (type === CONTINUE && id === 0) {
        grant = message.readUInt32LE(5);
        if (connection === null) {
          connection = make();
          resolve(connection);
        }
        return;
      }
      const state = streams.get(id);
      if (state === undefined) return;
      if (type === DATA) {
        state.stream.received += message.length - 5;
        const left = state.waiters.filter((w) => w.bytes > state.stream.received);
        for (const w of state.waiters) if (w.bytes <= state.stream.received) w.resolve();
        state.waiters = left;
      } else if (type === CONTINUE) {
        state.credit = message.readUInt32LE(5);
        state.drain();
      } else if (type === CLOSE) state.end(message[5] ?? 0);
    });
  });
}

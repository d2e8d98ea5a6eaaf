import type { ByteStream } from "../bytes";
import { messageOf } from "../platform";

/** One accepted TCP connection as the page's code sees it (the proxy reads and writes this). */
export interface TcpStream extends ByteStream {
  /** Unique within the peer, e.g. "tcp-7"; the same id is on the connection's wire events. */
  readonly id: string;
  readonly remote: { readonly address: string; readonly port: number };
  readonly localPort: number;
  /** Resets the connection (RST to the guest) and errors both streams. */
  abort(reason?: string): void;
}

/** What the connection offers its streams: called by the Web Streams machinery. */
export interface StreamSide {
  /** Queues bytes to send; resolves when the send buffer has room again (backpressure). */
  write(chunk: Uint8Array): Promise<void> | undefined;
  /** The writable closed: send FIN after the queued data. */
  closeWrite(): void;
  abort(reason: string): void;
  /** The consumer read: the receive window may have opened. */
  readOpened(): void;
  /** The consumer cancelled the readable: further data is acknowledged and discarded. */
  readCancelled(): void;
}

/** The connection's handle on the readable's queue. */
export interface StreamEnds {
  readonly stream: TcpStream;
  /** Bytes the readable's queue can take before the consumer falls behind. */
  readonly freeSpace: number;
  /** False once the readable was closed, errored or cancelled. */
  readonly readOpen: boolean;
  deliver(data: Uint8Array): void;
  /** The guest sent FIN. */
  end(): void;
  /** The connection was reset. */
  fail(error: Error): void;
}

/**
 * Builds the two Web Streams for a connection. The readable's queue is bounded in bytes:
 * its desired size is the receive window the connection advertises, so a slow consumer
 * slows the guest down instead of growing memory.
 */
export function createStreamEnds(
  identity: Pick<TcpStream, "id" | "remote" | "localPort">,
  side: StreamSide,
  receiveBuffer: number,
): StreamEnds {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let readOpen = true;
  const readable = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      pull: () => side.readOpened(),
      cancel: () => {
        readOpen = false;
        side.readCancelled();
      },
    },
    { highWaterMark: receiveBuffer, size: (chunk) => chunk.byteLength },
  );
  let writableController!: WritableStreamDefaultController;
  const writable = new WritableStream<Uint8Array>(
    {
      start: (c) => {
        writableController = c;
      },
      write: (chunk) => side.write(chunk),
      close: () => side.closeWrite(),
      abort: (reason) => side.abort(messageOf(reason ?? "aborted")),
    },
    { highWaterMark: 1 },
  );
  const stream: TcpStream = {
    ...identity,
    readable,
    writable,
    abort: (reason = "aborted by the page") => side.abort(reason),
  };
  return {
    stream,
    get freeSpace() {
      return readOpen ? Math.max(0, controller.desiredSize ?? 0) : receiveBuffer;
    },
    get readOpen() {
      return readOpen;
    },
    deliver(data) {
      if (readOpen) controller.enqueue(data);
    },
    end() {
      if (!readOpen) return;
      readOpen = false;
      controller.close();
    },
    fail(error) {
      if (readOpen) controller.error(error);
      readOpen = false;
      writableController.error(error);
    },
  };
}

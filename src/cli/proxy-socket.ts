import type { Socket } from "node:net";
import type { ByteStream } from "../bytes";

/** How long a socket whose both directions are done may wait for the client's FIN. */
const LINGER_MS = 2_000;
/** How long it may wait once it stopped reading a client that kept sending (it has our answer and FIN by then). */
const STALLED_LINGER_MS = 250;
/**
 * How much input is read and discarded after reading was cancelled. Past this the
 * socket stops reading: a client still sending the body of a refused request stalls on TCP
 * flow control (it already has our answer and FIN) until the linger ends, rather than costing
 * the proxy its whole upload (a flood of 16 MiB bodies, each refused, would all be read).
 */
const DISCARD_LIMIT_BYTES = 64 * 1024;

/**
 * A Node socket as the ByteStream the proxy core reads and writes (what a TcpStream is in
 * the page). Backpressure both ways: the socket is paused while the reader is not pulling,
 * and a write resolves when Node has taken the bytes.
 *
 * Cancelling the readable stops reading only: the writable stays usable, because the TLS
 * terminator cancels reading before it sends its refusal alert, and destroying the
 * socket there lost the alert. Once both directions are done, the socket lingers briefly
 * (discarding input, up to a bound) so the client reads our FIN rather than a reset, then is
 * destroyed.
 */
export function socketStream(socket: Socket): ByteStream {
  let finished = false;
  let readCancelled = false;
  let lingering = false;
  let discarded = 0;
  let stalled = false;
  let lingerTimer: NodeJS.Timeout | null = null;
  const linger = (ms = LINGER_MS) => {
    if (lingering && ms >= LINGER_MS) return;
    lingering = true;
    if (lingerTimer) clearTimeout(lingerTimer);
    const timer = setTimeout(() => socket.destroy(), ms);
    lingerTimer = timer;
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      socket.on("data", (chunk: Buffer) => {
        if (finished) {
          discarded += chunk.length;
          if (readCancelled && discarded > DISCARD_LIMIT_BYTES) {
            socket.pause();
            if (socket.writableEnded && !stalled) {
              stalled = true;
              linger(STALLED_LINGER_MS); // its end destroys the socket, whatever the client still sends
            }
          }
          return;
        }
        // A view, not a copy: each read has its own memory, and the proxy copies what it keeps
        // (a copy per read doubled the allocation churn under a flood).
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) socket.pause();
      });
      socket.on("end", () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      socket.on("error", (error) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      });
      socket.on("close", () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
    },
    pull() {
      socket.resume();
    },
    cancel() {
      finished = true;
      readCancelled = true;
      socket.resume(); // input is discarded from now on; a paused socket would never see the FIN
      if (socket.writableEnded) linger();
    },
  });
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        socket.write(chunk, (error) => (error ? reject(error) : resolve()));
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve();
        socket.end(() => {
          if (readCancelled) linger();
          resolve();
        });
      });
    },
    abort() {
      socket.destroy();
    },
  });
  return { readable, writable };
}

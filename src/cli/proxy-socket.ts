import type { Socket } from "node:net";
import type { ByteStream } from "../bytes";

/** How long a socket whose both directions are done may wait for the client's FIN. */
const LINGER_MS = 2_000;

/**
 * A Node socket as the ByteStream the proxy core reads and writes (what a TcpStream is in
 * the page). Backpressure both ways: the socket is paused while the reader is not pulling,
 * and a write resolves when Node has taken the bytes.
 *
 * Cancelling the readable stops reading only: the writable stays usable, because the TLS
 * terminator cancels reading before it sends its refusal alert (issue 6), and destroying the
 * socket there lost the alert. Once both directions are done, the socket lingers briefly
 * (discarding input) so the client reads our FIN rather than a reset, then is destroyed.
 */
export function socketStream(socket: Socket): ByteStream {
  let finished = false;
  let readCancelled = false;
  let lingering = false;
  const linger = () => {
    if (lingering) return;
    lingering = true;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      socket.on("data", (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk));
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

import type { Socket } from "node:net";
import type { ByteStream } from "../bytes";

/**
 * A Node socket as the ByteStream the proxy core reads and writes (what a TcpStream is in
 * the page). Backpressure both ways: the socket is paused while the reader is not pulling,
 * and a write resolves when Node has taken the bytes.
 */
export function socketStream(socket: Socket): ByteStream {
  let finished = false;
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
      socket.destroy();
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
        socket.end(() => resolve());
      });
    },
    abort() {
      socket.destroy();
    },
  });
  return { readable, writable };
}

import type { Socket } from "node:net";
import type { ByteStream } from "../../bytes";

/**
 * A node:net socket as a ByteStream, with backpressure both ways: the socket is paused
 * while the readable's queue is full, and a write resolves once the socket accepted it
 * (at once, or after 'drain').
 */
export function socketByteStream(socket: Socket): ByteStream {
  let readingCancelled = false;
  const readable = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        socket.on("data", (chunk: Buffer) => {
          if (readingCancelled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) socket.pause();
        });
        socket.on("end", () => {
          if (!readingCancelled) controller.close();
        });
        socket.on("error", (error) => {
          if (!readingCancelled) controller.error(error);
          readingCancelled = true;
        });
      },
      pull() {
        socket.resume();
      },
      cancel() {
        readingCancelled = true;
        socket.resume(); // drain and drop, so the peer is not blocked by an unread window
        if (socket.writableEnded) socket.destroy();
      },
    },
    { highWaterMark: 8 },
  );
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        if (socket.destroyed) return reject(new Error("socket destroyed"));
        if (socket.write(chunk)) return resolve();
        const onDrain = () => {
          socket.off("close", onClose);
          resolve();
        };
        const onClose = () => {
          socket.off("drain", onDrain);
          reject(new Error("socket closed"));
        };
        socket.once("drain", onDrain);
        socket.once("close", onClose);
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        socket.end(() => {
          if (readingCancelled) socket.destroy();
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

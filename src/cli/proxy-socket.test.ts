import { connect, createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { socketStream } from "./proxy-socket";

// After the proxy has answered and stopped reading (a refused upload), a client that
// keeps sending must not cost the proxy its whole upload. It still gets the answer.

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

describe("a socket whose reading was cancelled reads a bounded amount more", () => {
  it("a client still sending 32 MiB after the answer gets the answer, and at most a few MiB of its upload are read", async () => {
    let readAfterCancel = 0;
    let cancelled = false;
    server = createServer({ allowHalfOpen: true }, (socket) => {
      socket.on("data", (chunk: Buffer) => {
        if (cancelled) readAfterCancel += chunk.length;
      });
      const stream = socketStream(socket);
      const reader = stream.readable.getReader();
      const writer = stream.writable.getWriter();
      void (async () => {
        await reader.read(); // the request's first bytes: then refuse it, as the proxy does a too-large body
        cancelled = true;
        await reader.cancel();
        await writer.write(new TextEncoder().encode("HTTP/1.1 413 Content Too Large\r\nConnection: close\r\n\r\n"));
        await writer.close();
      })();
    });
    const port = await new Promise<number>((resolve) =>
      server!.listen(0, "127.0.0.1", () => resolve((server!.address() as { port: number }).port)),
    );
    const received = await new Promise<string>((resolve) => {
      let text = "";
      const client = connect(port, "127.0.0.1", () => client.write(Buffer.alloc(32 * 1024 * 1024, 0x61)));
      client.on("data", (d: Buffer) => {
        text += d.toString("latin1");
      });
      client.on("error", () => undefined); // the reset that ends the upload
      client.on("close", () => resolve(text));
    });
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    // 64 KiB discarded, then reading stops; what Node had already buffered may still surface.
    expect(readAfterCancel).toBeLessThan(4 * 1024 * 1024);
  });
});

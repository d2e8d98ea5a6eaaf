import type { ByteStream } from "../../bytes";

/** Two ends of an in-memory byte pipe: what one writes, the other reads. */
export function memoryPipe(): { server: ByteStream; client: ByteStream } {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  return {
    server: { readable: toServer.readable, writable: toClient.writable },
    client: { readable: toClient.readable, writable: toServer.writable },
  };
}

/** Reads a stream to its end (or error), concatenated; never throws. */
export async function drain(readable: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = readable.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch {
    // an errored stream ends the drain
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

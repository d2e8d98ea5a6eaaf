import { type ByteStream, concatBytes, utf8 } from "../../bytes";
import { ByteSource } from "../source";
import type { EgressProxy, UpstreamFetch, UpstreamInit } from "../types";

/**
 * Test helpers: an in-memory connection (what a TcpStream or a Node socket looks like to the
 * proxy) and a recorded fake fetch.
 */

export interface MemoryClient {
  /** The proxy's end of the connection. */
  readonly server: ByteStream;
  send(data: string | Uint8Array): Promise<void>;
  /** Ends the client's sending side (the proxy sees EOF). */
  end(): Promise<void>;
  /** Waits until the received text contains `marker`; returns all text received so far. */
  waitFor(marker: string): Promise<string>;
  /** Everything received until the proxy closed the connection. */
  readToEnd(): Promise<string>;
  /** Bytes received so far. */
  received(): Uint8Array;
}

export function memoryConnection(): MemoryClient {
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const writer = up.writable.getWriter();
  const reader = down.readable.getReader();
  let received: Uint8Array = new Uint8Array(0);
  let closed = false;
  const pullOnce = async (): Promise<boolean> => {
    if (closed) return false;
    const { value, done } = await reader.read();
    if (done) {
      closed = true;
      return false;
    }
    received = concatBytes(received, value);
    return true;
  };
  const text = () => new TextDecoder("latin1").decode(received);
  return {
    server: { readable: up.readable, writable: down.writable },
    async send(data) {
      await writer.write(typeof data === "string" ? utf8(data) : data);
    },
    async end() {
      await writer.close().catch(() => undefined);
    },
    async waitFor(marker) {
      while (!text().includes(marker))
        if (!(await pullOnce())) throw new Error(`connection closed before ${JSON.stringify(marker)}; got ${JSON.stringify(text())}`);
      return text();
    },
    async readToEnd() {
      while (await pullOnce()) {}
      return text();
    },
    received: () => received,
  };
}

export interface RecordedCall {
  url: string;
  init: UpstreamInit;
  body: string | null;
}

/** A fake upstream: `answer` decides per call; every call is recorded. */
export function recordedFetch(
  answer: (url: string, init: UpstreamInit) => Response | Promise<Response>,
): UpstreamFetch & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const fetch = async (url: string, init: UpstreamInit) => {
    calls.push({ url, init, body: init.body ? new TextDecoder().decode(init.body) : null });
    return answer(url, init);
  };
  return Object.assign(fetch, { calls });
}

/** What a browser's fetch gives for a redirect with `redirect: "manual"`: status 0, type "opaqueredirect". */
export function opaqueRedirect(): Response {
  const response = new Response(null, { status: 200 });
  Object.defineProperty(response, "type", { value: "opaqueredirect" });
  Object.defineProperty(response, "status", { value: 0 });
  return response;
}

/** Splits a raw HTTP/1.1 response into status, headers (lowercase names) and body text. */
export function parseResponse(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.slice(end + 4);
  const body = headers["transfer-encoding"]?.toLowerCase() === "chunked" ? dechunk(rest) : rest;
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

/** The body of a chunked answer, as a client reads it (sizes counted in characters: tests send ASCII). */
function dechunk(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const line = text.indexOf("\r\n", at);
    if (line < 0) return out;
    const size = Number.parseInt(text.slice(at, line), 16);
    if (!(size > 0)) return out;
    out += text.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}

/**
 * One HTTP/1.1 exchange with the proxy over an in-memory connection: writes `request`, closes
 * the guest's side, and reads everything the proxy answers until it closes.
 */
export async function exchangeOnce(
  proxy: EgressProxy,
  request: Uint8Array,
): Promise<{ status: number; headers: Record<string, string>; body: string; raw: string }> {
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const done = proxy.handle({ readable: up.readable, writable: down.writable });
  const writer = up.writable.getWriter();
  await writer.write(request);
  await writer.close();
  const chunks: Uint8Array[] = [];
  const reader = down.readable.getReader();
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    chunks.push(value);
  }
  await done;
  const raw = new TextDecoder().decode(concatBytes(...chunks));
  return { ...parseResponse(raw), raw };
}

/** A connection's bytes split into exactly these pieces, as a ByteSource reads them. */
export function sourceOf(pieces: Uint8Array[]): ByteSource {
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < pieces.length) controller.enqueue(pieces[next++]!);
      else controller.close();
    },
  });
  return new ByteSource(stream.getReader());
}

import { messageOf } from "../platform";
import type { Connection } from "./connection";
import { forwardResponseHeaders, headerEntries } from "./headers";
import { chunk, LAST_CHUNK, type ResponseHeaders, responseHead } from "./respond";
import { type UpstreamClock, upstreamTimeoutReason, within } from "./timeouts";

/**
 * Streams an upstream response back to the guest with framing of our own: fetch() has
 * already decoded the body, so the upstream's Content-Encoding and its length are gone and the
 * proxy frames it again (Content-Length when it is still known, else chunked, else close).
 */

export interface StreamedReply {
  bytes: number;
  /** True when the connection cannot carry another request after this response. */
  close: boolean;
  /** Set when the upstream body failed midway (the response is cut, the connection closed). */
  error?: string;
  /**
   * The upstream's body ended early (failed, stalled, shorter than its length) after the
   * status line was sent: the guest has a success status and fewer bytes than the upstream meant.
   */
  cut?: true;
}

/** The guest's side failed while its reply streamed (it went away): nothing more can be sent to it. */
class GuestGone extends Error {
  bytes = 0;
}

/**
 * Never throws: an upstream body that fails or stalls, and a guest that goes away, both end
 * the stream with `error` set, so the exchange still records its one decision.
 */
export async function streamReply(
  conn: Connection,
  response: Response,
  method: string,
  clientVersion: "1.0" | "1.1",
  keepAlive: boolean,
  clock: UpstreamClock | null = null,
): Promise<StreamedReply> {
  const reader = response.body?.getReader() ?? null;
  const cancel = () => reader?.cancel().catch(() => undefined);
  try {
    return await stream(conn, response, reader, method, clientVersion, keepAlive, clock);
  } catch (error) {
    void cancel(); // the upstream's body is not wanted any more: free its connection
    const why = messageOf(error);
    if (error instanceof GuestGone) return { bytes: error.bytes, close: true, error: `the guest's connection failed: ${why}` };
    return { bytes: 0, close: true, error: `relaying failed: ${why}` };
  }
}

async function stream(
  conn: Connection,
  response: Response,
  reader: ReadableStreamDefaultReader<Uint8Array> | null,
  method: string,
  clientVersion: "1.0" | "1.1",
  keepAlive: boolean,
  clock: UpstreamClock | null,
): Promise<StreamedReply> {
  const write = async (...parts: Uint8Array[]) => {
    try {
      await conn.write(...parts);
    } catch (error) {
      throw new GuestGone(messageOf(error));
    }
  };
  const status = response.status;
  const noBody = method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200);
  const encoded = response.headers.has("content-encoding");
  const lengthHeader = response.headers.get("content-length");
  const knownLength = !encoded && lengthHeader !== null && /^\d{1,15}$/.test(lengthHeader) ? Number(lengthHeader) : null;
  const headers: ResponseHeaders = forwardResponseHeaders(headerEntries(response.headers));
  headers.push(["X-Verdict", "served"]);

  let framing: "none" | "length" | "chunked" | "close";
  if (noBody) framing = "none";
  else if (knownLength !== null) framing = "length";
  else if (clientVersion === "1.1") framing = "chunked";
  else framing = "close";
  if (framing === "length" || (method === "HEAD" && knownLength !== null)) headers.push(["Content-Length", String(knownLength)]);
  if (framing === "chunked") headers.push(["Transfer-Encoding", "chunked"]);
  const close = !keepAlive || framing === "close";
  if (close) headers.push(["Connection", "close"]);
  await write(responseHead(status, headers, response.statusText));

  if (framing === "none" || !reader) {
    await reader?.cancel().catch(() => undefined);
    if (framing === "chunked") await write(LAST_CHUNK);
    if (framing === "length" && knownLength !== 0) return { bytes: 0, close: true, cut: true, error: "the upstream response had no body" };
    return { bytes: 0, close };
  }

  let bytes = 0;
  try {
    for (;;) {
      let next: { kind: "value"; value: ReadableStreamReadResult<Uint8Array> } | { kind: "timeout" };
      try {
        next = await within(clock, reader.read());
      } catch (error) {
        // The guest already has a status line: the only honest signal left is closing.
        return {
          bytes,
          close: true,
          cut: true,
          error: `the upstream body failed: ${messageOf(error)}`,
        };
      }
      if (next.kind === "timeout") {
        await reader.cancel().catch(() => undefined);
        return { bytes, close: true, cut: true, error: upstreamTimeoutReason(clock?.ms ?? 0, "the upstream body stalled: no data") };
      }
      const { value, done } = next.value;
      if (done) break;
      if (value.length === 0) continue;
      if (framing === "length") {
        const room = (knownLength ?? 0) - bytes;
        const part = value.length > room ? value.subarray(0, room) : value;
        await write(part);
        bytes += part.length;
        if (value.length > room) {
          await reader.cancel().catch(() => undefined);
          return { bytes, close: true, error: "the upstream body was longer than its Content-Length" };
        }
      } else {
        await write(...(framing === "chunked" ? chunk(value) : [value]));
        bytes += value.length;
      }
    }
  } catch (error) {
    if (error instanceof GuestGone) error.bytes = bytes;
    throw error;
  }
  if (framing === "length" && bytes !== knownLength)
    return { bytes, close: true, cut: true, error: "the upstream body was shorter than its Content-Length" };
  if (framing === "chunked") await write(LAST_CHUNK);
  return { bytes, close };
}

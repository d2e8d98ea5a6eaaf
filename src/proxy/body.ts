import { concatBytes } from "../bytes";
import { type Framing, MAX_BODY_BYTES } from "./head";
import type { ByteSource } from "./source";

/** Reading a request body by its framing (RFC 9112 §6–7). Errors are reasons, never throws. */

export type BodyRead = { ok: true; body: Uint8Array } | { ok: false; reason: string };

const CHUNK_SIZE_LINE = /^([0-9A-Fa-f]{1,8})(;[\t\x20-\x7e]*)?$/;
const TRAILER_LIMIT = 16 * 1024;

export async function readBody(source: ByteSource, framing: Framing): Promise<BodyRead> {
  if (framing.kind === "none") return { ok: true, body: new Uint8Array(0) };
  if (framing.kind === "length") {
    const body = await source.readExact(framing.length);
    return body ? { ok: true, body } : { ok: false, reason: `the connection ended before the ${framing.length}-byte body` };
  }
  return readChunked(source);
}

async function readChunked(source: ByteSource): Promise<BodyRead> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const sizeLine = await source.readLine(1024);
    if (sizeLine.kind === "error") return { ok: false, reason: sizeLine.reason };
    const text = latin1(sizeLine.bytes);
    const match = CHUNK_SIZE_LINE.exec(text);
    if (!match) return { ok: false, reason: `invalid chunk-size line ${JSON.stringify(text.slice(0, 40))}` };
    const size = Number.parseInt(match[1]!, 16);
    if (size === 0) break;
    total += size;
    if (total > MAX_BODY_BYTES) return { ok: false, reason: `the chunked body exceeds the ${MAX_BODY_BYTES}-byte limit` };
    const data = await source.readExact(size);
    if (!data) return { ok: false, reason: "the connection ended inside a chunk" };
    parts.push(data);
    const end = await source.readLine(0);
    if (end.kind === "error" || end.bytes.length > 0) return { ok: false, reason: "a chunk is not followed by CRLF" };
  }
  // Trailers are read and dropped: nothing downstream may depend on them.
  let trailerBytes = 0;
  for (;;) {
    const line = await source.readLine(TRAILER_LIMIT);
    if (line.kind === "error") return { ok: false, reason: line.reason };
    if (line.bytes.length === 0) break;
    trailerBytes += line.bytes.length;
    if (trailerBytes > TRAILER_LIMIT) return { ok: false, reason: `trailers exceed ${TRAILER_LIMIT} bytes` };
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*$/.test(latin1(line.bytes)))
      return { ok: false, reason: "a malformed trailer line" };
  }
  return { ok: true, body: concatBytes(...parts) };
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

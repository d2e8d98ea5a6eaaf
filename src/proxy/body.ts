import type { Framing } from "./head";
import {
  BodyBuffer,
  type BodyLimits,
  type BudgetLease,
  CHUNK_EXTENSIONS_LIMIT,
  CHUNK_LINE_LIMIT,
  type GrowthStats,
  TRAILER_LIMIT,
} from "./limits";
import type { ByteSource } from "./source";

/**
 * Reading a request body by its framing (RFC 9112 §6–7) into one growing buffer, within the
 * per-request bounds and the shared budget. Errors are coded failures, never throws.
 */

export interface BodyFailure {
  code: "bad-request" | "too-large";
  /** 400 for framing, 413 past a per-request bound, 503 when the shared budget is spent. */
  status: number;
  reason: string;
}

export type BodyRead = { ok: true; body: Uint8Array } | { ok: false; failure: BodyFailure };

export interface BodyOptions {
  limits: BodyLimits;
  /** The exchange's share of the proxy's in-flight budget; null: unbounded (tests of framing alone). */
  lease: BudgetLease | null;
  /** Filled with the buffer's growth, for tests that assert memory is linear in the body. */
  stats?: GrowthStats;
}

const malformed = (reason: string): BodyRead => ({ ok: false, failure: { code: "bad-request", status: 400, reason } });
const tooLarge = (reason: string): BodyRead => ({ ok: false, failure: { code: "too-large", status: 413, reason } });
/** The reason every refusal for the shared budget gives (answered 503 too-large). */
export const BUDGET_SPENT = "the proxy's in-flight body budget is spent (other requests hold it); retry later";
const budgetSpent = (): BodyRead => ({ ok: false, failure: { code: "too-large", status: 503, reason: BUDGET_SPENT } });

export async function readBody(source: ByteSource, framing: Framing, options: BodyOptions): Promise<BodyRead> {
  if (framing.kind === "none") return { ok: true, body: new Uint8Array(0) };
  if (framing.kind === "length") return readLength(source, framing.length, options);
  return readChunked(source, options);
}

async function readLength(source: ByteSource, length: number, options: BodyOptions): Promise<BodyRead> {
  const { maxBodyBytes } = options.limits;
  if (length > maxBodyBytes) return tooLarge(`Content-Length ${length} exceeds the ${maxBodyBytes}-byte body limit`);
  if (length === 0) return { ok: true, body: new Uint8Array(0) };
  // The declared length is reserved before a byte is read (admission): bodies that start can
  // finish, and the rest are refused at once rather than all read part-way and all refused
  // when the budget runs out. A client that declares much and sends little holds its share
  // until the body timeout. Memory is allocated when the first byte arrives.
  if (options.lease && !options.lease.grow(length)) return budgetSpent();
  const buffer = new BodyBuffer(length, null, true); // charged above; it holds exactly `length`
  const outcome = await source.readInto(length, (part) => buffer.append(part) === "ok");
  if (options.stats) Object.assign(options.stats, buffer.stats);
  if (outcome !== "done") return malformed(`the connection ended before the ${length}-byte body`);
  return { ok: true, body: buffer.result() };
}

async function readChunked(source: ByteSource, options: BodyOptions): Promise<BodyRead> {
  const { maxBodyBytes, maxChunks } = options.limits;
  const buffer = new BodyBuffer(maxBodyBytes, options.lease);
  const done = (read: BodyRead): BodyRead => {
    if (options.stats) Object.assign(options.stats, buffer.stats);
    return read;
  };
  let chunks = 0;
  let extensionBytes = 0;
  // One sink for every chunk (a closure per chunk is measurable under a flood of 1-byte chunks).
  let refused: "too-large" | "budget" | null = null;
  const sink = (part: Uint8Array): boolean => {
    const appended = buffer.append(part);
    if (appended === "ok") return true;
    refused = appended;
    return false;
  };
  // Each step takes what is already buffered without waiting, and awaits only when it must:
  // a flood of 1-byte chunks costs a line scan per chunk, not a promise per chunk.
  for (;;) {
    // Whole frames already buffered are taken in place, with no allocation per chunk.
    const fast = fastFrames(source.peek(), buffer, maxChunks - chunks, CHUNK_EXTENSIONS_LIMIT - extensionBytes);
    source.consume(fast.consumed);
    chunks += fast.chunks;
    extensionBytes += fast.extensionBytes;
    if (fast.stop === "chunks") return done(tooLarge(`the chunked body has more than ${maxChunks} chunks`));
    if (fast.stop === "extensions") return done(tooLarge(`chunk extensions exceed ${CHUNK_EXTENSIONS_LIMIT} bytes in one body`));
    if (fast.stop === "too-large") return done(tooLarge(`the chunked body exceeds the ${maxBodyBytes}-byte body limit`));
    if (fast.stop === "budget") return done(budgetSpent());
    // Then one frame the slow way: incomplete, the last one, or malformed (it says exactly how).
    const sizeLine = source.lineNow(CHUNK_LINE_LIMIT) ?? (await source.readLine(CHUNK_LINE_LIMIT));
    if (sizeLine.kind === "error") return done(malformed(sizeLine.reason));
    const parsed = parseChunkSize(sizeLine.bytes);
    if (parsed === null) return done(malformed(`invalid chunk-size line ${JSON.stringify(latin1(sizeLine.bytes.subarray(0, 40)))}`));
    extensionBytes += parsed.extensionBytes;
    if (extensionBytes > CHUNK_EXTENSIONS_LIMIT)
      return done(tooLarge(`chunk extensions exceed ${CHUNK_EXTENSIONS_LIMIT} bytes in one body`));
    const { size } = parsed;
    if (size === 0) break;
    if (++chunks > maxChunks) return done(tooLarge(`the chunked body has more than ${maxChunks} chunks`));
    if (buffer.size + size > maxBodyBytes) return done(tooLarge(`the chunked body exceeds the ${maxBodyBytes}-byte body limit`));
    const now = source.takeNow(size, sink);
    const outcome = now === size ? "done" : now < 0 ? "stopped" : await source.readInto(size - now, sink);
    if (refused === "budget") return done(budgetSpent());
    if (refused !== null) return done(tooLarge(`the chunked body exceeds the ${maxBodyBytes}-byte body limit`));
    if (outcome !== "done") return done(malformed("the connection ended inside a chunk"));
    const end = source.lineNow(0) ?? (await source.readLine(0));
    if (end.kind === "error" || end.bytes.length > 0) return done(malformed("a chunk is not followed by CRLF"));
  }
  // Trailers are read and dropped: nothing downstream may depend on them.
  let trailerBytes = 0;
  for (;;) {
    const line = await source.readLine(TRAILER_LIMIT);
    if (line.kind === "error") return done(malformed(line.reason));
    if (line.bytes.length === 0) break;
    trailerBytes += line.bytes.length;
    if (trailerBytes > TRAILER_LIMIT) return done(tooLarge(`trailers exceed ${TRAILER_LIMIT} bytes`));
    if (!isTrailerLine(line.bytes)) return done(malformed("a malformed trailer line"));
  }
  return done({ ok: true, body: buffer.result() });
}

interface FastFrames {
  consumed: number;
  chunks: number;
  extensionBytes: number;
  /** Why it stopped early with a refusal; null when it just ran out of complete, well-formed frames. */
  stop: "chunks" | "extensions" | "too-large" | "budget" | null;
}

/**
 * Reads complete, well-formed, non-last chunk frames from `view` into `buffer`, in one pass
 * and without allocating. Anything else (a partial frame, the last chunk, a malformed line)
 * is left to the general path, which reads it the same way and names any fault.
 */
function fastFrames(view: Uint8Array, buffer: BodyBuffer, chunksLeft: number, extensionsLeft: number): FastFrames {
  const out: FastFrames = { consumed: 0, chunks: 0, extensionBytes: 0, stop: null };
  let at = 0;
  while (at < view.length) {
    let i = at;
    let size = 0;
    while (i < view.length && i - at < 8 && isHex(view[i]!)) {
      const b = view[i]!;
      size = size * 16 + (b <= 0x39 ? b - 0x30 : (b | 0x20) - 0x57);
      i++;
    }
    if (i === at || size === 0 || i >= view.length) return out;
    let extension = 0;
    if (view[i] === 0x3b) {
      const from = i;
      while (i < view.length && i - at < CHUNK_LINE_LIMIT && isVisibleOrBlank(view[i]!)) i++;
      extension = i - from;
    }
    if (i + 1 >= view.length || view[i] !== 0x0d || view[i + 1] !== 0x0a) return out;
    const dataStart = i + 2;
    const dataEnd = dataStart + size;
    if (dataEnd + 2 > view.length || view[dataEnd] !== 0x0d || view[dataEnd + 1] !== 0x0a) return out;
    if (out.chunks + 1 > chunksLeft) return { ...out, stop: "chunks" };
    if (out.extensionBytes + extension > extensionsLeft) return { ...out, stop: "extensions" };
    const appended = buffer.appendRange(view, dataStart, dataEnd);
    if (appended !== "ok") return { ...out, stop: appended };
    out.chunks++;
    out.extensionBytes += extension;
    at = dataEnd + 2;
    out.consumed = at;
  }
  return out;
}

const isHex = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
const isVisibleOrBlank = (b: number) => b === 0x09 || (b >= 0x20 && b <= 0x7e);
const isObsOrVisible = (b: number) => isVisibleOrBlank(b) || b >= 0x80;
const TOKEN_CHARS = new Set([..."!#$%&'*+-.^_`|~"].map((c) => c.charCodeAt(0)));
const isTokenChar = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || TOKEN_CHARS.has(b);

/** `1*8HEXDIG [ ";" visible-or-blank* ]`, scanned once; null when malformed. */
export function parseChunkSize(line: Uint8Array): { size: number; extensionBytes: number } | null {
  let i = 0;
  let size = 0;
  while (i < line.length && isHex(line[i]!)) {
    if (i === 8) return null;
    const b = line[i]!;
    size = size * 16 + (b <= 0x39 ? b - 0x30 : (b | 0x20) - 0x57);
    i++;
  }
  if (i === 0) return null;
  if (i === line.length) return { size, extensionBytes: 0 };
  if (line[i] !== 0x3b) return null;
  for (let j = i + 1; j < line.length; j++) if (!isVisibleOrBlank(line[j]!)) return null;
  return { size, extensionBytes: line.length - i };
}

/** `token ":" field-value`, scanned once. */
function isTrailerLine(line: Uint8Array): boolean {
  let i = 0;
  while (i < line.length && isTokenChar(line[i]!)) i++;
  if (i === 0 || line[i] !== 0x3a) return false;
  for (let j = i + 1; j < line.length; j++) if (!isObsOrVisible(line[j]!)) return false;
  return true;
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

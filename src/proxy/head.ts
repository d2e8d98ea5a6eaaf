import { DEFAULT_MAX_BODY_BYTES } from "./limits";

/**
 * A strict parser for a request head (RFC 9112), pure: bytes in, a head or a specific reason
 * out. Strict because the guest is untrusted and a lenient proxy is how request smuggling
 * happens: anything two parsers could read differently is refused, never repaired.
 */

export type HeaderList = readonly (readonly [name: string, value: string])[];

export type Framing = { kind: "none" } | { kind: "length"; length: number } | { kind: "chunked" };

export interface RequestHead {
  method: string;
  /** The request-target exactly as sent. */
  target: string;
  version: "1.0" | "1.1";
  /** Field names as sent (case kept), values without surrounding whitespace. */
  headers: HeaderList;
  framing: Framing;
  expectContinue: boolean;
  /** False when the client asked to close (Connection: close, or HTTP/1.0 without keep-alive). */
  keepAlive: boolean;
}

export type HeadParse = { ok: true; head: RequestHead } | { ok: false; reason: string };

/** Counts the characters the parser looked at, so a test can assert its work is linear in the head. */
export interface ParseMeter {
  steps: number;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: HTAB, SP, VCHAR and obs-text; never CR, LF, NUL or other controls.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** The largest body a guest request may carry by default (bytes); see limits.ts. */
export const MAX_BODY_BYTES = DEFAULT_MAX_BODY_BYTES;

const isBlank = (c: number) => c === 0x20 || c === 0x09;

/** `text` without leading and trailing SP/HTAB, in one pass (a regex with `[ \t]+$` is quadratic on runs of blanks). */
function trimBlanks(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && isBlank(text.charCodeAt(from))) from++;
  while (to > from && isBlank(text.charCodeAt(to - 1))) to--;
  return text.slice(from, to);
}

/**
 * Parses one request head. Every step is a single pass over its input or a regex made of one
 * character class (no backtracking), so the work is linear in the head's size.
 */
export function parseRequestHead(bytes: Uint8Array, meter: ParseMeter = { steps: 0 }): HeadParse {
  // latin1: one char per byte, so obs-text survives and every byte can be judged.
  let text = "";
  for (let i = 0; i < bytes.length; i += 4096) text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  meter.steps += bytes.length;
  if (!text.endsWith("\r\n\r\n")) return { ok: false, reason: "the request head does not end with an empty line" };
  const lines = text.slice(0, -4).split("\r\n");
  meter.steps += text.length;
  for (const line of lines) {
    meter.steps += line.length;
    if (line.includes("\r") || line.includes("\n")) return { ok: false, reason: "bare CR or LF in the request head" };
  }
  const requestLine = lines[0] ?? "";

  const parts = requestLine.split(" ");
  meter.steps += requestLine.length;
  const version = parts[2];
  if (parts.length !== 3 || parts[0] === "" || parts[1] === "" || version === undefined || !/^HTTP\/\d\.\d$/.test(version))
    return { ok: false, reason: `malformed request line ${JSON.stringify(requestLine.slice(0, 100))}` };
  const [method = "", target = ""] = parts;
  meter.steps += method.length + target.length;
  if (!TOKEN.test(method)) return { ok: false, reason: `the method ${JSON.stringify(method.slice(0, 40))} is not a token` };
  const methodProblem = nonCanonicalMethod(method);
  if (methodProblem) return { ok: false, reason: methodProblem };
  if (!VISIBLE_ASCII.test(target)) return { ok: false, reason: "the request-target contains a character outside visible ASCII" };
  const [major, minor] = [version[5], version[7]];
  if (major !== "1" || (minor !== "0" && minor !== "1"))
    return { ok: false, reason: `HTTP/${major}.${minor} is not supported; use HTTP/1.1` };
  const httpVersion = minor === "1" ? "1.1" : "1.0";

  const headers: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith(" ") || line.startsWith("\t"))
      return { ok: false, reason: "obs-fold (a header line starting with whitespace) is refused" };
    const colon = line.indexOf(":");
    meter.steps += line.length * 3; // indexOf, the name's token test, the value's trim and test
    if (colon <= 0) return { ok: false, reason: `a header line without a name and colon: ${JSON.stringify(line.slice(0, 60))}` };
    const name = line.slice(0, colon);
    if (!TOKEN.test(name))
      return {
        ok: false,
        reason: `the header name ${JSON.stringify(name.slice(0, 60))} is not a token (whitespace before the colon is refused)`,
      };
    const value = trimBlanks(line.slice(colon + 1));
    if (!FIELD_VALUE.test(value)) return { ok: false, reason: `the ${name} header contains a control character` };
    headers.push([name, value]);
  }

  // One pass sorts out the headers that decide framing and connection handling.
  const named = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    meter.steps += name.length;
    if (!FRAMING_HEADERS.has(lower)) continue;
    const list = named.get(lower);
    if (list) list.push(value);
    else named.set(lower, [value]);
  }
  const all = (name: string): string[] => named.get(name) ?? [];
  const hosts = all("host");
  if (hosts.length > 1) return { ok: false, reason: "duplicate Host headers" };
  if (hosts.length === 0 && httpVersion === "1.1") return { ok: false, reason: "an HTTP/1.1 request without a Host header" };

  const lengths = all("content-length");
  const encodings = all("transfer-encoding");
  let framing: Framing = { kind: "none" };
  if (lengths.length > 0 && encodings.length > 0)
    return { ok: false, reason: "both Content-Length and Transfer-Encoding (request smuggling)" };
  if (lengths.length > 1) return { ok: false, reason: "duplicate Content-Length headers" };
  if (lengths.length === 1) {
    const value = lengths[0]!;
    if (!/^\d{1,16}$/.test(value)) return { ok: false, reason: `invalid Content-Length ${JSON.stringify(value.slice(0, 40))}` };
    // Whether it fits the body limit is the reader's call (too-large, with the configured limit).
    framing = { kind: "length", length: Number(value) };
  }
  if (encodings.length > 1) return { ok: false, reason: "duplicate Transfer-Encoding headers" };
  if (encodings.length === 1) {
    if (httpVersion === "1.0") return { ok: false, reason: "Transfer-Encoding in an HTTP/1.0 request" };
    if (encodings[0]!.toLowerCase() !== "chunked")
      return { ok: false, reason: `Transfer-Encoding ${JSON.stringify(encodings[0]!.slice(0, 40))} is not supported; only chunked` };
    framing = { kind: "chunked" };
  }

  const expects = all("expect");
  if (expects.length > 1) return { ok: false, reason: "duplicate Expect headers" };
  const expectContinue = expects.length === 1;
  if (expectContinue && expects[0]!.toLowerCase() !== "100-continue")
    return { ok: false, reason: `Expect ${JSON.stringify(expects[0]!.slice(0, 40))} is not supported` };

  const connection = all("connection").flatMap((v) =>
    v
      .toLowerCase()
      .split(",")
      .map((t) => trimBlanks(t)),
  );
  const keepAlive =
    httpVersion === "1.1" ? !connection.includes("close") : connection.includes("keep-alive") && !connection.includes("close");
  return { ok: true, head: { method, target, version: httpVersion, headers, framing, expectContinue, keepAlive } };
}

const FRAMING_HEADERS = new Set(["host", "content-length", "transfer-encoding", "expect", "connection"]);

/**
 * Methods are case-sensitive tokens (RFC 9110 §9.1), but hosts do not send them as given:
 * Node upper-cases every method and browsers upper-case the standard ones. A method with a
 * lower-case letter would be decided as one thing and sent as another, so it is refused.
 */
export function nonCanonicalMethod(method: string): string | null {
  if (method === method.toUpperCase()) return null;
  return `the method ${JSON.stringify(method.slice(0, 40))} is not written in upper case; methods are case-sensitive and would reach the upstream as ${JSON.stringify(method.slice(0, 40).toUpperCase())}, so send ${JSON.stringify(method.slice(0, 40).toUpperCase())}`;
}

/** Methods fetch() refuses to send (Fetch standard: forbidden methods): no host can forward them. */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** Why `method` cannot be forwarded upstream, or null. */
export function unforwardableMethod(method: string): string | null {
  const canonical = nonCanonicalMethod(method);
  if (canonical) return canonical;
  if (FORBIDDEN_METHODS.has(method))
    return `a ${method} request cannot be forwarded: fetch() refuses the method${method === "CONNECT" ? " (CONNECT takes authority-form, host:port, to open a tunnel)" : ""}`;
  return null;
}

/** The first value of a header (names compare case-insensitively), or undefined. */
export function headerValue(headers: HeaderList, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

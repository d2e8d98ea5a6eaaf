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

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: HTAB, SP, VCHAR and obs-text; never CR, LF, NUL or other controls.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const REQUEST_LINE = /^([^ ]+) ([^ ]+) HTTP\/(\d)\.(\d)$/;

/** The largest body a guest request may carry (bytes). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function parseRequestHead(bytes: Uint8Array): HeadParse {
  // latin1: one char per byte, so obs-text survives and every byte can be judged.
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  if (!text.endsWith("\r\n\r\n")) return { ok: false, reason: "the request head does not end with an empty line" };
  const lines = text.slice(0, -4).split("\r\n");
  const requestLine = lines[0] ?? "";
  if (/[\r\n]/.test(text.slice(0, -4).replace(/\r\n/g, ""))) return { ok: false, reason: "bare CR or LF in the request head" };

  const match = REQUEST_LINE.exec(requestLine);
  if (!match) return { ok: false, reason: `malformed request line ${JSON.stringify(requestLine.slice(0, 100))}` };
  const [, method = "", target = "", major, minor] = match;
  if (!TOKEN.test(method)) return { ok: false, reason: `the method ${JSON.stringify(method.slice(0, 40))} is not a token` };
  if (!/^[\x21-\x7e]+$/.test(target)) return { ok: false, reason: "the request-target contains a character outside visible ASCII" };
  if (major !== "1" || (minor !== "0" && minor !== "1"))
    return { ok: false, reason: `HTTP/${major}.${minor} is not supported; use HTTP/1.1` };
  const version = minor === "1" ? "1.1" : "1.0";

  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    if (line.startsWith(" ") || line.startsWith("\t"))
      return { ok: false, reason: "obs-fold (a header line starting with whitespace) is refused" };
    const colon = line.indexOf(":");
    if (colon <= 0) return { ok: false, reason: `a header line without a name and colon: ${JSON.stringify(line.slice(0, 60))}` };
    const name = line.slice(0, colon);
    if (!TOKEN.test(name))
      return {
        ok: false,
        reason: `the header name ${JSON.stringify(name.slice(0, 60))} is not a token (whitespace before the colon is refused)`,
      };
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!FIELD_VALUE.test(value)) return { ok: false, reason: `the ${name} header contains a control character` };
    headers.push([name, value]);
  }

  const all = (name: string) => headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
  const hosts = all("host");
  if (hosts.length > 1) return { ok: false, reason: "duplicate Host headers" };
  if (hosts.length === 0 && version === "1.1") return { ok: false, reason: "an HTTP/1.1 request without a Host header" };

  const lengths = all("content-length");
  const encodings = all("transfer-encoding");
  let framing: Framing = { kind: "none" };
  if (lengths.length > 0 && encodings.length > 0)
    return { ok: false, reason: "both Content-Length and Transfer-Encoding (request smuggling)" };
  if (lengths.length > 1) return { ok: false, reason: "duplicate Content-Length headers" };
  if (lengths.length === 1) {
    const value = lengths[0]!;
    if (!/^\d{1,16}$/.test(value)) return { ok: false, reason: `invalid Content-Length ${JSON.stringify(value.slice(0, 40))}` };
    const length = Number(value);
    if (length > MAX_BODY_BYTES) return { ok: false, reason: `Content-Length ${length} exceeds the ${MAX_BODY_BYTES}-byte body limit` };
    framing = { kind: "length", length };
  }
  if (encodings.length > 1) return { ok: false, reason: "duplicate Transfer-Encoding headers" };
  if (encodings.length === 1) {
    if (version === "1.0") return { ok: false, reason: "Transfer-Encoding in an HTTP/1.0 request" };
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
      .map((t) => t.trim()),
  );
  const keepAlive = version === "1.1" ? !connection.includes("close") : connection.includes("keep-alive") && !connection.includes("close");
  return { ok: true, head: { method, target, version, headers, framing, expectContinue, keepAlive } };
}

/** The first value of a header (names compare case-insensitively), or undefined. */
export function headerValue(headers: HeaderList, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

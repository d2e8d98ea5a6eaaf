import type { HeaderList } from "./head";

/**
 * Which headers cross the proxy. Hop-by-hop headers belong to one connection (RFC 9110
 * §7.6.1); forbidden request headers are the ones a browser's fetch() silently drops or sets
 * itself, dropped here too so the Node host and the page forward the same request.
 */

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const FORBIDDEN_REQUEST = new Set([
  "accept-charset",
  "accept-encoding",
  "access-control-request-headers",
  "access-control-request-method",
  "content-length",
  "cookie",
  "cookie2",
  "date",
  "dnt",
  "expect",
  "host",
  "origin",
  "referer",
  "set-cookie",
  "via",
]);

function connectionListed(headers: HeaderList): Set<string> {
  const listed = new Set<string>();
  for (const [name, value] of headers)
    if (name.toLowerCase() === "connection") for (const token of value.split(",")) listed.add(token.trim().toLowerCase());
  return listed;
}

/** The guest's request headers as they may be given to fetch(). */
export function forwardRequestHeaders(headers: HeaderList): [string, string][] {
  const listed = connectionListed(headers);
  return headers
    .filter(([name]) => {
      const lower = name.toLowerCase();
      return (
        !HOP_BY_HOP.has(lower) &&
        !FORBIDDEN_REQUEST.has(lower) &&
        !listed.has(lower) &&
        !lower.startsWith("proxy-") &&
        !lower.startsWith("sec-")
      );
    })
    .map(([name, value]) => [name, value]);
}

/** A Headers object's entries (forEach: the core's lib has no Headers iterator types). */
export function headerEntries(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  headers.forEach((value, name) => {
    out.push([name, value]);
  });
  return out;
}

/**
 * Upstream response headers as they may be sent to the guest. The body fetch() hands over is
 * already decoded, so Content-Encoding and Content-Length go, and the proxy frames it again.
 */
export function forwardResponseHeaders(headers: Iterable<[string, string]>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower === "content-encoding" || lower === "content-length" || lower === "x-verdict") continue;
    out.push([name, value]);
  }
  return out;
}

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|api-?key|password|session|auth/i;
const SECRET_PARAM =
  /^(access_token|token|id_token|refresh_token|api_key|apikey|key|secret|client_secret|password|passwd|sig|signature|code|auth|session)$/i;

export const REDACTED = "[redacted]";

/** Request headers for the decision event, with secrets replaced (Authorization, cookies, tokens). */
export function redactHeaders(headers: HeaderList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    const shown = SECRET_HEADER.test(lower) ? REDACTED : value;
    out[lower] = out[lower] === undefined ? shown : `${out[lower]}, ${shown}`;
  }
  return out;
}

/** A URL for the decision event: userinfo removed, secret-looking query values redacted. */
export function redactUrl(url: string): string {
  const withoutUserinfo = url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, `$1${REDACTED}@`);
  const queryStart = withoutUserinfo.indexOf("?");
  if (queryStart === -1) return withoutUserinfo;
  const [query, fragment] = splitOnce(withoutUserinfo.slice(queryStart + 1), "#");
  const redacted = query
    .split("&")
    .map((pair) => {
      const [name] = splitOnce(pair, "=");
      return SECRET_PARAM.test(safeDecode(name)) && pair.includes("=") ? `${name}=${REDACTED}` : pair;
    })
    .join("&");
  return `${withoutUserinfo.slice(0, queryStart)}?${redacted}${fragment === undefined ? "" : `#${fragment}`}`;
}

const SECRET_IN_TEXT =
  /([?&](?:access_token|token|id_token|refresh_token|api_key|apikey|key|secret|client_secret|password|passwd|sig|signature|code|auth|session)=)[^&#\s"]*/gi;

/** Free text (a reason) with secret-looking query values redacted wherever a URL appears in it. */
export function redactText(text: string): string {
  return text.replace(SECRET_IN_TEXT, `$1${REDACTED}`).replace(/(\/\/)[^/?#@\s"]*@/g, `$1${REDACTED}@`);
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

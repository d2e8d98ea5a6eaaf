import { utf8 } from "../bytes";
import type { Verdict, VerdictCode } from "../log";

/** Writing responses: heads, refusals (403 + X-Verdict + JSON body), framing. */

export type ResponseHeaders = [name: string, value: string][];

const REASON_PHRASES: Record<number, string> = {
  100: "Continue",
  200: "OK",
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  421: "Misdirected Request",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function responseHead(status: number, headers: ResponseHeaders, statusText?: string): Uint8Array {
  // A status text from upstream is hostile data: keep only visible ASCII and spaces.
  const text = (statusText || REASON_PHRASES[status] || "").replace(/[^\x20-\x7e]/g, "");
  let head = `HTTP/1.1 ${status} ${text}\r\n`;
  for (const [name, value] of headers) head += `${name}: ${value.replace(/[\r\n\0]/g, " ")}\r\n`;
  return utf8(`${head}\r\n`);
}

/** The HTTP status a refusal with this code is answered with. */
export function statusForRefusal(code: VerdictCode): number {
  switch (code) {
    case "bad-request":
      return 400;
    case "request-timeout":
      return 408;
    case "too-large":
      return 413;
    case "host-header-mismatch":
      return 421;
    case "upstream-unreadable":
    case "upstream-error":
    case "upstream-cert-invalid":
    case "relay-refused":
      return 502;
    case "tls-not-ready":
      return 501;
    case "too-many-connections":
      return 503;
    default:
      return 403;
  }
}

export interface Refusal {
  status: number;
  head: Uint8Array;
  body: Uint8Array;
}

/** `{status} + X-Verdict: <code> + { "verdict": "refused", "code", "reason" }`. */
export function refusalResponse(verdict: Verdict, close: boolean, status = statusForRefusal(verdict.code)): Refusal {
  const body = utf8(`${JSON.stringify({ verdict: "refused", code: verdict.code, reason: verdict.reason })}\n`);
  const headers: ResponseHeaders = [
    ["Content-Type", "application/json"],
    ["Content-Length", String(body.length)],
    ["X-Verdict", verdict.code],
  ];
  if (close) headers.push(["Connection", "close"]);
  return { status, head: responseHead(status, headers), body };
}

/** A served answer with a complete body (own endpoints, /v0/fetch). */
export function completeResponse(status: number, contentType: string, body: Uint8Array, close: boolean): Uint8Array[] {
  const headers: ResponseHeaders = [
    ["Content-Type", contentType],
    ["Content-Length", String(body.length)],
    ["X-Verdict", "served"],
  ];
  if (close) headers.push(["Connection", "close"]);
  return [responseHead(status, headers), body];
}

export const CONTINUE = utf8("HTTP/1.1 100 Continue\r\n\r\n");
export const CONNECTION_ESTABLISHED = utf8("HTTP/1.1 200 Connection Established\r\n\r\n");

/** Frames body chunks as `Transfer-Encoding: chunked`. */
export function chunk(data: Uint8Array): Uint8Array[] {
  return [utf8(`${data.length.toString(16)}\r\n`), data, utf8("\r\n")];
}
export const LAST_CHUNK = utf8("0\r\n\r\n");

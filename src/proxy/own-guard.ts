import { refuse, type Verdict } from "../log";
import { type HeaderList, headerValue } from "./head";

/**
 * The proxy's own endpoints (/v0/*) are for the guest and for a user's curl, never for a web
 * page the user happens to visit: on the Node host the proxy listens on 127.0.0.1, which any
 * page can make the browser POST to (a "simple" cross-site request needs no CORS preflight).
 * Browsers mark such requests (Origin, Sec-Fetch-Site); curl and the guest send neither.
 */

/** Why a request to an own endpoint is refused as cross-site, or null when it is not. */
export function crossSiteRefusal(headers: HeaderList, ownHosts: ReadonlySet<string>): Verdict | null {
  const fetchSite = headerValue(headers, "sec-fetch-site")?.toLowerCase();
  if (fetchSite === "cross-site")
    return refuse("endpoint-not-allowed", "the proxy's own endpoints refuse cross-site requests (Sec-Fetch-Site: cross-site)", "proxy");
  const origin = headerValue(headers, "origin");
  if (origin !== undefined && !isOwnOrigin(origin, ownHosts))
    return refuse(
      "endpoint-not-allowed",
      `the proxy's own endpoints refuse requests from another origin (Origin ${JSON.stringify(origin.slice(0, 100))} is not the proxy's own)`,
      "proxy",
    );
  return null;
}

function isOwnOrigin(origin: string, ownHosts: ReadonlySet<string>): boolean {
  const lower = origin.toLowerCase();
  if (!lower.startsWith("http://")) return false; // the proxy speaks plain http; "null" and https:// are others
  return ownHosts.has(lower.slice("http://".length));
}

/**
 * Which content types a POST to an own endpoint may carry. The proxy's JSON endpoints
 * (/v0/fetch, /v0/vault/*) require `application/json`, which a page cannot send cross-site
 * without a preflight the proxy never answers. Other handlers (the page's /v0/model, whose
 * guest client posts text/plain) refuse the HTML form types and accept the rest; there the
 * Origin and Sec-Fetch-Site checks are the guard.
 */
export function contentTypeRefusal(method: string, path: string, headers: HeaderList, jsonOnly: boolean): Verdict | null {
  if (method !== "POST" && method !== "PUT" && method !== "PATCH") return null;
  const given = headerValue(headers, "content-type");
  const type = mediaType(given ?? "");
  if (jsonOnly) {
    if (type === "application/json") return null;
    return refuse(
      "bad-request",
      `${method} ${path} takes a JSON body: send Content-Type: application/json (got ${given === undefined ? "none" : JSON.stringify(given.slice(0, 80))})`,
      "proxy",
    );
  }
  if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data")
    return refuse("bad-request", `${method} ${path} does not take an HTML form body (Content-Type ${JSON.stringify(type)})`, "proxy");
  return null;
}

/** The type/subtype of a Content-Type value, lower-cased, without parameters. */
function mediaType(value: string): string {
  const semicolon = value.indexOf(";");
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

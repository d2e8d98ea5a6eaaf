import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { allow, refuse, type Verdict } from "../log";
import { messageOf } from "../platform";
import { classifyAddress, hostKey, readHost, refuseHost } from "../policy";
import type { HostResolution } from "../proxy";

/**
 * The Node host's one way out: every component that fetches on the CLI —
 * the proxy's upstream, the resolver, skills, and the model through the proxy — goes through
 * this. Node's fetch cannot pin an address, so:
 *  - https only (plain http only when the caller's rules allow it), a name (never an IP
 *    literal, never a name private by convention: `readHost`, the proxy's own reading), port
 *    443 or a port the caller's rules list explicitly;
 *  - the name is resolved once and every address it resolves to is checked against the
 *    address table (`classifyAddress`: loopback, private, link-local, CGNAT, documentation…
 *    are refused `private-address`);
 *  - node:https connects to that checked address through a custom `lookup`, with TLS
 *    servername = the name, so nothing resolves the name a second time (DNS rebinding);
 *  - redirects are never followed; through `fetch`, one to another host is `redirect-other-host`.
 * Body caps stay the callers' (they read the body as it streams and stop at their cap).
 */

/**
 * A refusal before or instead of an exchange. Callers that know the name (`FetchRefused`)
 * report its verdict as the outcome, not as a network failure (src/resolver, src/skills).
 */
export class FetchRefused extends Error {
  override name = "FetchRefused";
  constructor(readonly verdict: Verdict) {
    super(verdict.reason);
  }
}

/** A network failure. Not a TypeError: the proxy reports it as `upstream-error`, not CORS. */
export class UpstreamFailure extends Error {
  override name = "UpstreamFailure";
}

/** `dns.lookup(host, { all: true })`, injectable so tests can answer without DNS. */
export type Lookup = (host: string) => Promise<readonly { address: string; family: number }[]>;

export interface GuardOptions {
  /** Ports allowed for a host besides 443: exactly what the caller's own rules list. */
  ports?: (host: string) => readonly number[];
  /** Plain http as well (the proxy under a policy saying `http: allow`: local test upstreams). */
  allowHttp?: () => boolean;
  /**
   * TEST ONLY (`--allow-private-for-tests`): addresses that may be connected to although they
   * are not public, so tests can reach an upstream on 127.0.0.1. Empty by default.
   */
  allowPrivateForTests?: ReadonlySet<string>;
  /** TEST ONLY: trust anchors (PEM) used instead of Node's CA store, for a local https upstream. */
  caForTests?: string;
  /** Socket inactivity limit of one exchange. */
  timeoutMs?: number;
  lookup?: Lookup;
}

/** One exchange, as the proxy hands it over (`UpstreamInit`) or `fetch` builds it. */
export interface GuardedRequest {
  method: string;
  headers: readonly (readonly [string, string])[];
  body: Uint8Array | null;
  /** An address `resolveHost` already checked for this name; checked again, never looked up. */
  address?: string;
  signal?: AbortSignal;
}

export interface GuardedFetch {
  /** Resolves a name once and checks every address (the proxy calls it before `request`). */
  resolveHost(host: string): Promise<HostResolution>;
  /** The exchange; rejects with `FetchRefused` or `UpstreamFailure`. Redirects are returned. */
  request(url: string, request: GuardedRequest): Promise<Response>;
  /** Fetch-shaped, for the resolver and skills: `request` plus the redirect rule. */
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

const HTTPS_PORT = 443;
const NULL_BODY = new Set([204, 205, 304]);

export function createGuardedFetch(options: GuardOptions = {}): GuardedFetch {
  const allowPrivate = options.allowPrivateForTests ?? new Set<string>();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const lookup: Lookup = options.lookup ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));

  function addressRefusal(host: string, address: string): Verdict | null {
    const { category, entry } = classifyAddress(address);
    if (category === "public" || allowPrivate.has(address)) return null;
    return refuse(
      "private-address",
      `${host} resolved to ${address} (${category}) [${entry}]; only public addresses may be connected to`,
      "proxy",
    );
  }

  async function resolveHost(host: string): Promise<HostResolution> {
    let addresses: readonly { address: string; family: number }[];
    try {
      addresses = await lookup(host);
    } catch (error) {
      return {
        verdict: refuse("upstream-error", `could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, "proxy"),
      };
    }
    // Every address: a name that answers one public and one private address is refused.
    for (const { address } of addresses) {
      const refusal = addressRefusal(host, address);
      if (refusal) return { verdict: refusal };
    }
    const chosen = addresses.find((a) => a.family === 4) ?? addresses[0];
    if (!chosen) return { verdict: refuse("upstream-error", `${host} resolved to no address`, "proxy") };
    return { verdict: allow(`${host} resolved to ${chosen.address}`, "proxy"), address: chosen.address };
  }

  /** The checks that need no network, in the order the proxy's policy makes them; the host as `readHost` reads it. */
  function checkUrl(raw: string): { url: URL; host: string } {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new FetchRefused(refuse("bad-request", `${JSON.stringify(raw.slice(0, 200))} is not an absolute URL`, "proxy"));
    }
    const http = url.protocol === "http:" && options.allowHttp?.() === true;
    if (url.protocol !== "https:" && !http)
      throw new FetchRefused(
        refuse("not-https", `${url.protocol.replace(/:$/, "")}: is not https; only https upstreams are allowed`, "proxy"),
      );
    if (url.username !== "" || url.password !== "")
      throw new FetchRefused(refuse("bad-request", "the URL carries userinfo (user@host); credentials in URLs are refused", "proxy"));
    const reading = readHost(url.hostname);
    if (reading.kind === "invalid") throw new FetchRefused(refuse("bad-request", reading.reason, "proxy"));
    // Before any DNS: an IP literal, or a name private by convention (`localhost.`, `127-0-0-1.nip.io`).
    if (reading.kind !== "name") throw new FetchRefused(refuseHost(url.hostname, reading, "proxy"));
    const host = reading.host;
    const port = url.port === "" ? (http ? 80 : HTTPS_PORT) : Number(url.port);
    if (port !== HTTPS_PORT && !(options.ports?.(host) ?? []).includes(port))
      throw new FetchRefused(
        refuse("port-not-allowed", `port ${port} is not allowed for ${host}; only 443 and ports its rules list`, "proxy"),
      );
    return { url, host };
  }

  async function request(raw: string, init: GuardedRequest): Promise<Response> {
    const { url, host } = checkUrl(raw);
    let address = init.address;
    if (address === undefined) {
      const resolution = await resolveHost(host);
      if (resolution.verdict.code === "private-address") throw new FetchRefused(resolution.verdict);
      if (!resolution.verdict.allowed || !resolution.address) throw new UpstreamFailure(resolution.verdict.reason);
      address = resolution.address;
    } else {
      const refusal = addressRefusal(host, address);
      if (refusal) throw new FetchRefused(refusal);
    }
    return exchange(url, address, init);
  }

  function exchange(url: URL, address: string, init: GuardedRequest): Promise<Response> {
    const headers: Record<string, string> = {};
    for (const [name, value] of init.headers) {
      const key = name.toLowerCase();
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
    if (init.body) headers["content-length"] = String(init.body.length);
    const secure = url.protocol === "https:";
    const family: 4 | 6 = address.includes(":") ? 6 : 4;
    return new Promise<Response>((resolve, reject) => {
      const fail = (error: unknown) => reject(new UpstreamFailure(messageOf(error)));
      if (init.signal?.aborted) return fail(init.signal.reason);
      try {
        const outgoing = (secure ? httpsRequest : httpRequest)(
          {
            host: url.hostname,
            port: url.port === "" ? (secure ? HTTPS_PORT : 80) : Number(url.port),
            path: `${url.pathname}${url.search}`,
            method: init.method,
            headers,
            // A fresh connection each time: an agent's pooled socket could be another address's.
            agent: false,
            ...(secure ? { servername: url.hostname } : {}),
            ...(secure && options.caForTests !== undefined ? { ca: options.caForTests } : {}),
            // The connection goes to the checked address and nowhere else.
            lookup: pinnedLookup(address, family),
          },
          (incoming) => {
            try {
              const response = toWebResponse(incoming);
              init.signal?.addEventListener("abort", () => incoming.destroy(asError(init.signal?.reason)), { once: true });
              resolve(response);
            } catch (error) {
              incoming.destroy();
              fail(error);
            }
          },
        );
        outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer from ${url.host} within ${timeoutMs} ms`)));
        outgoing.on("error", fail);
        init.signal?.addEventListener("abort", () => outgoing.destroy(asError(init.signal?.reason)), { once: true });
        outgoing.end(init.body ? Buffer.from(init.body) : undefined);
      } catch (error) {
        fail(error);
      }
    });
  }

  async function guardedFetch(raw: string, init: RequestInit = {}): Promise<Response> {
    const response = await request(raw, {
      method: (init.method ?? "GET").toUpperCase(),
      headers: [...new Headers(init.headers).entries()],
      body: await bodyBytes(init.body),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    // Never followed (whatever `init.redirect` says); one that leaves the host is a refusal.
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location !== null) {
      const next = hostOf(location, raw);
      if (next !== hostOf(raw, raw)) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchRefused(
          refuse(
            "redirect-other-host",
            `${raw} redirected to ${next ?? JSON.stringify(location.slice(0, 100))}, another host; the redirect was not followed`,
            "proxy",
          ),
        );
      }
    }
    return response;
  }

  return { resolveHost, request, fetch: guardedFetch };
}

/**
 * A `Lookup` that answers the names of a table (TEST ONLY: `--resolve NAME=IP`) and an IP
 * literal itself, and asks `system` for every other name. The answer is checked as any other.
 */
export function lookupWithTable(table: ReadonlyMap<string, string>, system: Lookup): Lookup {
  return async (host) => {
    const answer = isIP(host) !== 0 ? host : table.get(host);
    return answer === undefined ? system(host) : [{ address: answer, family: isIP(answer) }];
  };
}

/**
 * `ports` for a guard from URLs the caller's rules list (e.g. an org config's
 * `allowed_remote_resources`): an explicit `:8443` there allows 8443 for that host, nothing else.
 */
export function portsListedIn(urls: readonly string[]): (host: string) => readonly number[] {
  const listed = new Map<string, number[]>();
  for (const raw of urls) {
    try {
      const url = new URL(raw);
      if (url.port !== "") listed.set(url.hostname, [...(listed.get(url.hostname) ?? []), Number(url.port)]);
    } catch {
      // An entry that does not parse lists no port; the resolver refuses it on its own.
    }
  }
  return (host) => listed.get(host) ?? [];
}

function hostOf(location: string, base: string): string | null {
  try {
    return hostKey(new URL(location, base).hostname);
  } catch {
    return null;
  }
}

async function bodyBytes(body: RequestInit["body"]): Promise<Uint8Array | null> {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new FetchRefused(refuse("bad-request", "the guarded fetch sends string or byte bodies only", "proxy"));
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason ?? "aborted"));
}

/** A `lookup` that answers every query with the one address that was checked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all)
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** A Node response as a fetch Response whose body is decoded, like a browser's. */
function toWebResponse(response: IncomingMessage): Response {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header the Fetch API cannot carry is dropped, as a browser would.
    }
  }
  const status = response.statusCode ?? 502;
  // The Fetch API carries 200–599 only; anything else is not an answer a browser would give.
  if (status < 200 || status > 599) throw new Error(`the upstream answered status ${status}`);
  const statusText = response.statusMessage ?? "";
  if (NULL_BODY.has(status)) {
    response.resume();
    return new Response(null, { status, statusText, headers });
  }
  const encoding = (headers.get("content-encoding") ?? "").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : null;
  if (decoder) headers.delete("content-length");
  const body = decoder ? response.pipe(decoder) : response;
  if (decoder) response.on("error", (error) => decoder.destroy(error));
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, { status, statusText, headers });
}

import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { allow, refuse } from "../log";
import { addressCategory } from "../policy";
import type { HostResolution, UpstreamFetch } from "../proxy";

/**
 * The Node host's upstream (issue 5). Node's fetch cannot pin an address, so a name is
 * resolved once (every address checked: none may be private, loopback, link-local, CGNAT,
 * documentation or IPv4-mapped), and node:https/node:http connect to that checked address
 * through a custom `lookup`, with TLS servername = the name. Nothing resolves the name twice,
 * so a DNS answer cannot change between the check and the connect (rebinding).
 */

export interface NodeUpstreamOptions {
  /**
   * TEST ONLY (`--allow-private-for-tests`): addresses that may be connected to although they
   * are private, so CLI tests can reach an upstream on 127.0.0.1. Empty by default.
   */
  allowPrivate?: ReadonlySet<string>;
  timeoutMs?: number;
}

/** A rejection that is not a TypeError: the proxy reports it as `upstream-error`, not CORS. */
class UpstreamFailure extends Error {
  override name = "UpstreamFailure";
}

export function createNodeUpstream(options: NodeUpstreamOptions = {}): {
  fetch: UpstreamFetch;
  resolveHost: (host: string) => Promise<HostResolution>;
} {
  const allowPrivate = options.allowPrivate ?? new Set<string>();
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function resolveHost(host: string): Promise<HostResolution> {
    let addresses: LookupAddress[];
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      return {
        verdict: refuse("upstream-error", `could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, "net"),
      };
    }
    for (const { address } of addresses) {
      const category = addressCategory(address);
      if (category !== "public" && !allowPrivate.has(address))
        return {
          verdict: refuse(
            "private-address",
            `${host} resolved to ${address} (${category}); only public addresses may be connected to`,
            "net",
          ),
        };
    }
    const chosen = addresses.find((a) => a.family === 4) ?? addresses[0];
    if (!chosen) return { verdict: refuse("upstream-error", `${host} resolved to no address`, "net") };
    return { verdict: allow(`${host} resolved to ${chosen.address}`, "net"), address: chosen.address };
  }

  const fetch: UpstreamFetch = async (url, init) => {
    const target = new URL(url);
    let address = init.address;
    if (address === undefined) {
      const resolution = await resolveHost(target.hostname);
      if (!resolution.verdict.allowed || !resolution.address) throw new UpstreamFailure(resolution.verdict.reason);
      address = resolution.address;
    }
    const pinned = address;
    const family: 4 | 6 = pinned.includes(":") ? 6 : 4;
    const headers: Record<string, string> = {};
    for (const [name, value] of init.headers) {
      const key = name.toLowerCase();
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
    if (init.body) headers["content-length"] = String(init.body.length);
    const secure = target.protocol === "https:";
    return new Promise<Response>((resolve, reject) => {
      const fail = (error: unknown) => reject(new UpstreamFailure(error instanceof Error ? error.message : String(error)));
      try {
        const request = (secure ? httpsRequest : httpRequest)(
          {
            host: target.hostname,
            port: target.port === "" ? (secure ? 443 : 80) : Number(target.port),
            path: `${target.pathname}${target.search}`,
            method: init.method,
            headers,
            agent: false,
            ...(secure ? { servername: target.hostname } : {}),
            // The connection goes to the checked address and nowhere else.
            lookup: pinnedLookup(pinned, family),
          },
          (response) => resolve(toWebResponse(response)),
        );
        request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer from ${target.host} within ${timeoutMs} ms`)));
        request.on("error", fail);
        request.end(init.body ? Buffer.from(init.body) : undefined);
      } catch (error) {
        fail(error);
      }
    });
  };

  return { fetch, resolveHost };
}

/** A `lookup` that answers every query with the one address that was checked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

const NULL_BODY = new Set([101, 204, 205, 304]);

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
  if (NULL_BODY.has(status)) {
    response.resume();
    return new Response(null, { status, statusText: response.statusMessage ?? "", headers });
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
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, { status, statusText: response.statusMessage ?? "", headers });
}

import { refuse, type Verdict } from "../../log";
import type { UpstreamFetch, UpstreamInit } from "../../proxy";

/**
 * The page's upstream fetch through a Wisp relay: the proxy has already decided the request,
 * and this opens a Wisp stream to the host and port in its URL and speaks TLS itself, with
 * epoxy-tls (rustls in wasm; docs/decisions/0021-in-page-tls-client.md). The certificate
 * chain is verified for that host name against the engine's bundled Mozilla roots (plus, in
 * tests only, the test's own roots). The relay moves ciphertext and never sees plaintext.
 * Redirects come back as they are (never followed), so the proxy sees every target.
 */

/** What the page needs of a TLS client engine: fetch over the relay, redirects not followed. */
export interface RelayEngine {
  /** The answer, and what to call once its body has been read or dropped (frees the engine's connection). */
  fetch(
    url: string,
    init: { method: string; headers: Headers; body?: Uint8Array; redirect: "manual" },
  ): Promise<{ response: Response; release(): void }>;
}

/** Opens an engine on `relayUrl` that trusts the bundled roots and `extraRoots`. */
export type RelayEngineFactory = (relayUrl: string, extraRoots: readonly string[]) => Promise<RelayEngine>;

/**
 * epoxy-tls, loaded only when a relay is first used: its JS (59 KB) and its wasm (1.27 MB,
 * about 0.6 MB compressed; the bundler emits it as an asset beside the page). A host without
 * `fetch()` of the wasm's URL (Node, in tests) passes the bytes.
 */
export function createEpoxyEngine(wasm?: () => Promise<BufferSource>): RelayEngineFactory {
  return async (relayUrl, extraRoots) => {
    const epoxy = await import("@mercuryworkshop/epoxy-tls/epoxy");
    await epoxy.default(wasm ? { module_or_path: await wasm() } : undefined);
    const client = () => {
      const options = new epoxy.EpoxyClientOptions();
      // Redirects are passed back, never followed: the proxy judges every target.
      options.redirect_limit = 0;
      if (extraRoots.length > 0) options.pem_files = [...extraRoots];
      return new epoxy.EpoxyClient(relayUrl, options);
    };
    return {
      // A client (one WebSocket, one Wisp stream, one TLS session) per request, freed when its
      // answer has been read: a pooled connection the upstream closed while idle can leave the
      // next request waiting for ever in a browser, and one request per stream is what the
      // relay's line per stream then describes.
      async fetch(url, init) {
        const once = client();
        let response: Response;
        try {
          response = await once.fetch(url, init);
        } catch (error) {
          once.free();
          throw error;
        }
        return { response, release: () => once.free() };
      },
    };
  };
}

export const epoxyEngine: RelayEngineFactory = createEpoxyEngine();

/** Headers the engine adds about itself, never passed to the guest. */
const ENGINE_HEADER = /^x-epoxy-/i;
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

export function createWispRelayFetch(
  relayUrl: string,
  extraRoots: readonly string[] = [],
  open: RelayEngineFactory = epoxyEngine,
): UpstreamFetch {
  let engine: Promise<RelayEngine> | null = null;
  const ready = () => {
    engine ??= open(relayUrl, extraRoots).catch((error: unknown) => {
      engine = null; // the next request tries again
      throw new Error(`the in-page TLS client did not load: ${message(error)}`);
    });
    return engine;
  };
  return async (url: string, init: UpstreamInit): Promise<Response> => {
    const client = await ready();
    let answer: Awaited<ReturnType<RelayEngine["fetch"]>>;
    try {
      answer = await client.fetch(url, {
        method: init.method,
        headers: new Headers(init.headers),
        ...(init.body && init.body.length > 0 ? { body: init.body } : {}),
        redirect: "manual",
      });
    } catch (error) {
      throw relayFailure(url, relayUrl, error);
    }
    const { response, release } = answer;
    const answered = new Headers();
    response.headers.forEach((value, name) => {
      if (!ENGINE_HEADER.test(name)) answered.append(name, value);
    });
    const body = NULL_BODY.has(response.status) || !response.body ? null : releasing(response.body, release);
    if (body === null) {
      void response.body?.cancel().catch(() => undefined);
      release();
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: answered });
  };
}

/** The same bytes; `release` runs once, when they end, fail or are cancelled. */
function releasing(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    release();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const part = await reader.read();
        if (part.done) {
          controller.close();
          done();
        } else controller.enqueue(part.value);
      } catch (error) {
        controller.error(error);
        done();
      }
    },
    async cancel(reason) {
      try {
        await reader.cancel(reason);
      } finally {
        done();
      }
    },
  });
}

/** The error the proxy reports: a certificate that did not verify is its own verdict. */
export function relayFailure(url: string, relayUrl: string, error: unknown): Error {
  const text = message(error);
  const host = hostOf(url);
  const certificate =
    /invalid peer certificate: ((?:[^()]|\([^()]*\))*)/.exec(text) ?? /InvalidCertificate\(((?:[^()]|\([^()]*\))*)\)/.exec(text);
  if (certificate) {
    const verdict: Verdict = refuse(
      "upstream-cert-invalid",
      `the certificate ${host} presented did not verify for ${host} against the bundled Mozilla roots (${certificate[1]?.trim() ?? "invalid"}); nothing was sent`,
      "proxy",
    );
    return Object.assign(new Error(verdict.reason), { name: "FetchRefused", verdict });
  }
  return new Error(`${relayStreamProblem(text) ?? "the request failed"} (relay ${relayUrl}): ${text.slice(0, 300)}`);
}

/** Wisp close reasons as epoxy names them, in words. */
function relayStreamProblem(text: string): string | null {
  if (/ServerStreamBlockedAddress|HostBlocked/.test(text)) return "the relay refused to open a stream to this destination";
  if (/ServerStreamConnectionRefused/.test(text)) return "the destination refused the relay's connection";
  if (/ServerStreamUnreachable|ServerStreamConnectionTimedOut|ServerStreamTimedOut/.test(text))
    return "the relay could not reach the destination";
  if (/WebSocket|websocket|Ws/.test(text)) return "the relay's WebSocket failed";
  return null;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

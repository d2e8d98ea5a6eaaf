import { refuse, type Verdict } from "../../log";
import { messageOf } from "../../platform";
import type { UpstreamFetch, UpstreamInit } from "../../proxy";
import { withoutToken } from "../../trust";

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
    const client = (url: string) => {
      const options = new epoxy.EpoxyClientOptions();
      // Redirects are passed back, never followed: the proxy judges every target.
      options.redirect_limit = 0;
      if (extraRoots.length > 0) options.pem_files = [...extraRoots];
      return new epoxy.EpoxyClient(url, options);
    };
    return {
      // A client (one WebSocket, one Wisp stream, one TLS session) per request, freed when its
      // answer has been read: a pooled connection the upstream closed while idle can leave the
      // next request waiting for ever in a browser, and one request per stream is what the
      // relay's line per stream then describes.
      async fetch(url, init) {
        // epoxy reports a stream the relay closed as a TLS error ("tls handshake eof"); the
        // relay's CLOSE reason is read off this request's own WebSocket (its URL is unique).
        const watched = watchRelayCloses(relayUrl);
        const once = client(watched.url);
        let response: Response;
        try {
          response = await once.fetch(url, init);
        } catch (error) {
          once.free();
          const reason = watched.reason();
          throw reason === null ? error : Object.assign(error instanceof Error ? error : new Error(String(error)), { wispClose: reason });
        } finally {
          watched.stop();
        }
        return { response, release: () => once.free() };
      },
    };
  };
}

export const epoxyEngine: RelayEngineFactory = createEpoxyEngine();

/** The WebSockets being watched for a Wisp CLOSE, by their (unique) URL. */
const watchers = new Map<string, { reason: number | null }>();
let requestCount = 0;
const WATCH_TAG = Symbol.for("tab.relay.watch");

/**
 * A URL for one request's WebSocket to the relay (the relay ignores the extra query
 * parameter) and the last Wisp CLOSE reason the relay sent on it. The page's WebSocket class
 * is wrapped once, so that a socket to a watched URL also reports its CLOSE frames.
 */
function watchRelayCloses(relayUrl: string): { url: string; reason(): number | null; stop(): void } {
  const Base = Reflect.get(globalThis, "WebSocket") as (typeof WebSocket & { [WATCH_TAG]?: true }) | undefined;
  if (Base !== undefined && !Base[WATCH_TAG]) {
    const Watching = class extends Base {
      static override readonly [WATCH_TAG] = true;
      constructor(address: string | URL, protocols?: string | string[]) {
        super(address, protocols);
        const watcher = watchers.get(String(address));
        if (watcher)
          this.addEventListener("message", (event: MessageEvent) => {
            const data = event.data;
            if (!(data instanceof ArrayBuffer) || data.byteLength < 6) return;
            const bytes = new Uint8Array(data);
            if (bytes[0] === 0x04) watcher.reason = bytes[5] ?? null;
          });
      }
    };
    Reflect.set(globalThis, "WebSocket", Watching);
  }
  const url = new URL(relayUrl);
  url.searchParams.set("request", String(++requestCount));
  const key = url.href;
  const watcher = { reason: null as number | null };
  watchers.set(key, watcher);
  return { url: key, reason: () => watcher.reason, stop: () => watchers.delete(key) };
}

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
      throw new Error(`the in-page TLS client did not load: ${messageOf(error)}`);
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

/**
 * The error the proxy reports: a certificate that did not verify is its own verdict, and so is
 * a stream the relay refused (`relay-refused`, naming the relay and its reason); anything else
 * is a failure (`upstream-error`).
 */
export function relayFailure(url: string, relayUrl: string, error: unknown): Error {
  const text = messageOf(error);
  const host = hostOf(url);
  const relay = withoutToken(relayUrl);
  const wispClose = (error as { wispClose?: unknown } | null)?.wispClose;
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
  const refusal = relayRefusal(typeof wispClose === "number" ? wispClose : null, text);
  if (refusal) {
    const verdict: Verdict = refuse(
      "relay-refused",
      `the relay ${relay} refused the stream to ${authorityOf(url)}: ${refusal}; its own log (one line per stream) says why`,
      "proxy",
    );
    return Object.assign(new Error(verdict.reason), { name: "FetchRefused", verdict });
  }
  return new Error(`${relayStreamProblem(text) ?? "the request failed"} (relay ${relay}): ${text.slice(0, 300)}`);
}

/** A Wisp CLOSE by which the relay said no, in words: its reason code, or epoxy's name for it. */
function relayRefusal(reason: number | null, text: string): string | null {
  if (reason === 0x48 || /ServerStreamBlockedAddress|HostBlocked/.test(text))
    return "blocked (a destination it does not serve: a private address, a name it cannot resolve, or a port it does not allow)";
  if (reason === 0x49 || /ServerStreamThrottled|Throttled/.test(text))
    return "throttled (past one of its caps on streams, rate or buffered bytes)";
  if (reason === 0x47 || /ServerStreamTimedOut/.test(text)) return "timed out (no traffic either way for its idle timeout)";
  return null;
}

/** Wisp close reasons and WebSocket failures as epoxy names them, in words. */
function relayStreamProblem(text: string): string | null {
  if (/ServerStreamConnectionRefused/.test(text)) return "the destination refused the relay's connection";
  if (/ServerStreamUnreachable|ServerStreamConnectionTimedOut/.test(text)) return "the relay could not reach the destination";
  if (/WebSocket|websocket|Ws/.test(text))
    return "the relay's WebSocket failed (a relay refuses other origins, a missing or wrong ?token=, and too many WebSockets from one client: its relay.refused lines say which)";
  return null;
}

function authorityOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === "http:" ? "80" : "443")}`;
  } catch {
    return url;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

import type { ByteStream } from "../bytes";
import type { EventLog, Verdict } from "../log";
import type { Clock, Timers } from "../platform";
import type { Policy } from "../policy";
import type { HeaderList } from "./head";

/** What the proxy hands to the injected fetch: a subset of RequestInit every host supports. */
export interface UpstreamInit {
  method: string;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer> | null;
  /** Always "manual": a redirect is never followed. */
  redirect: "manual";
  /** The address `resolveHost` checked for this name (Node host pins it); browsers ignore it. */
  address?: string;
}

/**
 * The upstream fetch. The page passes `(url, init) => fetch(url, init)`; the Node host passes
 * its pinned node:https client; tests pass a recorded fake. A rejection with a TypeError
 * means "the browser could not read it" (CORS or network): `upstream-unreadable`. Any other
 * rejection is `upstream-error`.
 */
export type UpstreamFetch = (url: string, init: UpstreamInit) => Promise<Response>;

/**
 * Which way an upstream request leaves the host (recorded in its decision event): the
 * browser's fetch() (CORS applies; a redirect's target is hidden), a Wisp relay with the page
 * as the TLS client (docs/relay.md), a CORS proxy (which sees the request), or the Node
 * host's own TCP and TLS. The CORS proxy's path keeps its first name, `cors-relay`, on the
 * log and in verdict reasons, so logs and tools written before read the same.
 */
export type UpstreamPath = "browser-fetch" | "wisp-relay" | "cors-relay" | "direct";

/** A host-side name check (Node: DNS lookup, refuse private addresses, pin the checked one). */
export interface HostResolution {
  verdict: Verdict;
  /** The checked address the upstream must connect to. */
  address?: string;
}
export type ResolveHost = (host: string) => Promise<HostResolution>;

/** What a CONNECT tunnel is about, as given to the TLS terminator. */
export interface ConnectInfo {
  host: string;
  port: number;
  /** The decision id of the CONNECT request. */
  id: string;
  /** Serves the decrypted HTTP requests of this tunnel (same as `proxy.serveTunnel`). */
  serveTunnel(plain: ByteStream, sessionId: string): Promise<void>;
}

/**
 * The TLS terminator's hook (src/tls). After the proxy has answered `200` to an allowed
 * CONNECT, `open` gets the raw tunnel bytes; it runs the handshake (SNI must equal
 * `connect.host`), then calls `connect.serveTunnel(plaintext, sessionId)` and resolves when
 * the tunnel is over. It owns `raw` from then on (closing it ends the guest's connection).
 */
export interface TunnelHook {
  open(raw: ByteStream, connect: ConnectInfo): Promise<void>;
}

export interface TunnelContext {
  host: string;
  port: number;
  sessionId: string;
}

/** An upstream request by value: what `POST /v0/fetch` carries, and what an own handler may send. */
export interface ByValueRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array | null;
  /**
   * false: never retry through the CORS proxy (a request carrying a secret the CORS proxy must not
   * see, like a model key); an unreadable answer is then `upstream-unreadable`. Default: as configured.
   */
  corsProxy?: boolean;
}

/**
 * The proxy's by-value fetch path (`fetchByValue`): the policy decision for `url`, the host
 * check, `fetch(url, {redirect: "manual"})`, the body limit. It logs nothing itself.
 */
export type FetchByValue = (request: ByValueRequest) => Promise<FetchOutcome>;

/** A request to one of the proxy's own endpoints, as given to an injected handler. */
export interface OwnRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: string;
  headers: HeaderList;
  body: Uint8Array;
  policy: Policy;
  /**
   * For a handler that fetches upstream on the guest's behalf (the model endpoint): the same
   * decision and fetch as `POST /v0/fetch`, under `policy`. The handler's answer is still the
   * one decision event: name the URL as `target` and say `decision: { mode: "fetch" }`.
   */
  fetchByValue?: FetchByValue;
  /**
   * Aborted when the proxy stops waiting for this handler (the upstream timeout: the guest was
   * answered 504); a handler still working should stop then.
   */
  signal?: AbortSignal;
}

/** How the one decision event describes a handler's request, when the defaults do not fit. */
export interface OwnDecision {
  /** "fetch" for a handler that fetched upstream by value (default: the endpoint's declared mode). */
  mode?: "own" | "fetch";
  /** The URL actually fetched, when it differs from `target` (a CORS proxy). */
  upstream?: string;
  /** For a refusal: the HTTP status to answer with instead of the code's default (e.g. 502). */
  status?: number;
}

/** A handler's answer; a refusal (`verdict.allowed === false`) is answered as every refusal is. */
export interface OwnResponse {
  verdict: Verdict;
  status?: number;
  contentType?: string;
  body?: Uint8Array | string;
  /** What the event's `target` should say (e.g. the vault id); defaults to the path. */
  target?: string;
  decision?: OwnDecision;
}

export type OwnHandler = (request: OwnRequest) => Promise<OwnResponse>;

/** A handler that declares how its endpoint is filed; a bare `OwnHandler` is `{ mode: "own", json: false }`. */
export interface OwnEndpointSpec {
  /** The decision event's mode for this endpoint's requests, refused or served (default "own"). */
  mode?: "own" | "vault";
  /** A POST, PUT or PATCH must carry `Content-Type: application/json` (default: only HTML form types are refused). */
  json?: boolean;
  handle: OwnHandler;
}

/** Extra own endpoints keyed by "METHOD /path", e.g. `"POST /v0/vault/pull"`. */
export type OwnHandlers = Readonly<Record<string, OwnHandler | OwnEndpointSpec>>;

export interface ProxyOptions {
  /** The current policy; called per request, so the page can swap it live. */
  policy: () => Policy;
  fetch: UpstreamFetch;
  clock: Clock;
  log: EventLog;
  /** The proxy's own name(s) as a Host header carries them, e.g. "10.0.2.2:3128". */
  ownHost: string | readonly string[];
  tunnel?: TunnelHook;
  /**
   * A CORS proxy tried when the browser cannot read an upstream: `{url}` in it is replaced by
   * the encoded target URL, or the encoded URL is appended. The relay then sees the request.
   */
  corsProxy?: string;
  resolveHost?: ResolveHost;
  /**
   * How `fetch` reaches upstreams at this moment, read just before each call (the page
   * switches to its Wisp relay live). Default "browser-fetch". A fetch on the "wisp-relay" or
   * "direct" path that rejects with a TypeError is `upstream-error`, not CORS.
   */
  upstreamPath?: () => UpstreamPath;
  handlers?: OwnHandlers;
  /** Without timers nothing times out (tests); hosts pass their real timers. */
  timers?: Timers;
  /** How long a request head may take, from its first byte (the connection's opening, for the first one); then 408. Default 30 s. */
  headTimeoutMs?: number;
  /** How long a connection or CONNECT tunnel may pass no traffic either way before it is closed. Default 5 min. */
  idleTimeoutMs?: number;
  /** How long a request body may take, from the end of its head; then 408. Default 60 s. */
  bodyTimeoutMs?: number;
  /** How long the upstream (or an own endpoint's handler) may take to answer, and between pieces of its body; then 504 or a cut. Default 120 s. */
  upstreamTimeoutMs?: number;
  /** The largest request body (and upstream body /v0/fetch buffers), in bytes; then 413 too-large. Default 16 MiB. */
  maxBodyBytes?: number;
  /** The most chunks one chunked body may have; then 413 too-large. Default 65 536. */
  maxChunks?: number;
  /** Client connections served at once; one more is refused 503 `too-many-connections`. Default 256. */
  maxConnections?: number;
  /** Bytes all in-flight bodies may hold together, across connections; then 503 too-large. Default 64 MiB. */
  bodyBudgetBytes?: number;
}

export interface EgressProxy {
  /** Serves one guest connection (many requests with keep-alive); resolves when it ends. Never rejects. */
  handle(stream: ByteStream): Promise<void>;
  /** Serves the plaintext HTTP requests inside a CONNECT tunnel. Never rejects. */
  serveTunnel(plain: ByteStream, tunnel: TunnelContext): Promise<void>;
}

/** What `POST /v0/fetch` answers for a request by value: the upstream's status, headers and body (base64 when binary). */
export interface FetchAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  base64: boolean;
}

/** How a request by value ended: refused with a verdict, or answered. */
export type FetchOutcome =
  | { kind: "refused"; verdict: Verdict; target: string; upstream?: string; status?: number; upstreamPath?: UpstreamPath }
  | {
      kind: "answer";
      verdict: Verdict;
      target: string;
      upstream: string;
      upstreamPath: UpstreamPath;
      answer: FetchAnswer;
      bytes: number;
      method: string;
    };

import type { EventLog } from "../../log";
import { createNetworkPeer, type FrameLink, type NetworkPeer } from "../../net";
import { systemClock, systemTimers } from "../../platform";
import type { PolicyHolder } from "../../policy";
import { createProxy, type EgressProxy, type OwnHandlers, type UpstreamFetch } from "../../proxy";
import { createTlsTerminator, type SessionCa, tlsTunnelHook } from "../../tls";

export const PROXY_PORT = 3128;
/** Generous: an emulated guest on a busy machine can take many seconds for its side of a TLS handshake or a request head. */
const GUEST_PATIENCE_MS = 60_000;

export interface PageNetwork {
  peer: NetworkPeer;
  proxy: EgressProxy;
  close(): void;
}

export interface PageNetworkOptions {
  /** The guest's NIC (src/page/emulator/boot.ts). */
  link: FrameLink;
  log: EventLog;
  policy: PolicyHolder;
  ca: SessionCa;
  handlers?: OwnHandlers;
  corsRelay?: string;
  /** The Wisp relay, when one is set: asked per request, so setting one applies to the next request. */
  relay?: { current(): { fetch: UpstreamFetch } | null };
}

/**
 * The guest's headers as the page's fetch() sends them. User-Agent goes: the browser sends its
 * own. Chromium ignores a User-Agent given to fetch(), but Firefox honours it, and it is not a
 * CORS-safelisted header, so a guest's `curl/…` would make every request need a preflight the
 * upstream must answer; dropped, a plain GET is a simple request in both engines.
 */
export function browserRequestHeaders(headers: [string, string][]): [string, string][] {
  return headers.filter(([name]) => name.toLowerCase() !== "user-agent");
}

/**
 * The page as the guest's only network peer: v86's NIC → the TCP/IP peer at 10.0.2.2 →
 * the proxy on :3128 → (inside CONNECT) the TLS terminator → the browser's fetch(), or the
 * Wisp relay with the page's own TLS client when one is set.
 */
export function connectPageNetwork(options: PageNetworkOptions): PageNetwork {
  const { log } = options;
  const peer = createNetworkPeer({ link: options.link, log });
  const terminator = createTlsTerminator({ ca: options.ca, log, handshakeTimeoutMs: GUEST_PATIENCE_MS });
  // The policy's hosts get their leaf certificates now, not during the guest's first handshake.
  const prepareLeaves = () => options.ca.prepare(options.policy.current().hosts.map((rule) => rule.host));
  prepareLeaves();
  const stopPreparing = log.subscribe((event) => {
    if (event.kind === "policy.change") prepareLeaves();
  });
  const ownHost = `${peer.config.peerIp}:${PROXY_PORT}`;
  const browserFetch: UpstreamFetch = (url, init) =>
    globalThis.fetch(url, {
      method: init.method,
      headers: browserRequestHeaders(init.headers),
      body: init.body,
      redirect: init.redirect,
      credentials: "omit",
      cache: "no-store",
    });
  const relayed = () => options.relay?.current() ?? null;
  const proxy = createProxy({
    policy: () => options.policy.current(),
    // With a relay the page is the TLS client (src/page/relay); without one, the browser's fetch().
    fetch: (url, init) => (relayed()?.fetch ?? browserFetch)(url, init),
    upstreamPath: () => (relayed() ? "wisp-relay" : "browser-fetch"),
    clock: systemClock,
    // Head and idle timeouts (the idle one at its 5 min default) run on the page's own timers.
    timers: systemTimers,
    headTimeoutMs: GUEST_PATIENCE_MS,
    log,
    ownHost: [ownHost, peer.config.peerIp, "proxy", `proxy:${PROXY_PORT}`],
    tunnel: tlsTunnelHook(terminator),
    ...(options.handlers ? { handlers: options.handlers } : {}),
    ...(options.corsRelay ? { corsRelay: options.corsRelay } : {}),
  });
  const stopListening = peer.listen(PROXY_PORT, (stream) => {
    void proxy.handle(stream);
  });
  return {
    peer,
    proxy,
    close() {
      stopPreparing();
      stopListening();
      peer.close();
    },
  };
}

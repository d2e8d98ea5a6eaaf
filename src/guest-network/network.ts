import type { EventLog } from "../log";
import { createNetworkPeer, type FrameLink, type NetworkPeer } from "../net";
import { systemClock, type Timers } from "../platform";
import type { PolicyHolder } from "../policy";
import { createProxy, type EgressProxy, type OwnHandlers, type ResolveHost, type UpstreamFetch, type UpstreamPath } from "../proxy";
import { createTlsTerminator, type SessionCa, tlsTunnelHook } from "../tls";

/**
 * The guest's network, assembled once for every host: v86's NIC → the TCP/IP peer at 10.0.2.2 →
 * the proxy on :3128 → (inside CONNECT) the TLS terminator → the host's upstream fetch. The page
 * passes the browser's fetch() (or its Wisp relay); the Node host (npx tab lesson test) passes
 * recordings, a local server or its guarded Node client. Everything the guest can reach goes
 * through here, so a verdict is the same in both hosts.
 */

export const PROXY_PORT = 3128;
/** Generous: an emulated guest on a busy machine can take many seconds for its side of a TLS handshake or a request head. */
export const GUEST_PATIENCE_MS = 60_000;

export interface GuestNetwork {
  peer: NetworkPeer;
  proxy: EgressProxy;
  close(): void;
}

export interface GuestNetworkOptions {
  /** The guest's NIC. */
  link: FrameLink;
  log: EventLog;
  policy: PolicyHolder;
  ca: SessionCa;
  /** Where allowed requests go. */
  fetch: UpstreamFetch;
  /** How `fetch` reaches upstreams at this moment (recorded in each decision). */
  upstreamPath: () => UpstreamPath;
  /** A host-side name check before `fetch` (the Node host's DNS and private-address guard). */
  resolveHost?: ResolveHost;
  /** The host's timers: the proxy's head and idle timeouts run on them. */
  timers: Timers;
  /** The host's own endpoints on the proxy (`/v0/vault/*`, `/v0/resolve`, …). */
  handlers?: OwnHandlers;
  corsProxy?: string;
}

export function connectGuestNetwork(options: GuestNetworkOptions): GuestNetwork {
  const { log } = options;
  const peer = createNetworkPeer({ link: options.link, log });
  // The guest's link to the terminator exists only inside this process, which holds the
  // plaintext anyway: psk_ke resumption spares the emulated CPU its X25519 (decision 0024).
  const terminator = createTlsTerminator({
    ca: options.ca,
    log,
    handshakeTimeoutMs: GUEST_PATIENCE_MS,
    resumeWithoutKeyExchange: true,
  });
  // The policy's hosts get their leaf certificates now, not during the guest's first handshake.
  const prepareLeaves = () => options.ca.prepare(options.policy.current().hosts.map((rule) => rule.host));
  prepareLeaves();
  const stopPreparing = log.subscribe((event) => {
    if (event.kind === "policy.change") prepareLeaves();
  });
  const ownHost = `${peer.config.peerIp}:${PROXY_PORT}`;
  const proxy = createProxy({
    policy: () => options.policy.current(),
    fetch: options.fetch,
    upstreamPath: options.upstreamPath,
    clock: systemClock,
    timers: options.timers,
    headTimeoutMs: GUEST_PATIENCE_MS,
    log,
    ownHost: [ownHost, peer.config.peerIp, "proxy", `proxy:${PROXY_PORT}`],
    tunnel: tlsTunnelHook(terminator),
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    ...(options.handlers ? { handlers: options.handlers } : {}),
    ...(options.corsProxy ? { corsProxy: options.corsProxy } : {}),
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

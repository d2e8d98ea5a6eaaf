import { connectGuestNetwork, type GuestNetwork, PROXY_PORT } from "../../guest-network";
import type { EventLog } from "../../log";
import type { FrameLink } from "../../net";
import { systemTimers } from "../../platform";
import type { PolicyHolder } from "../../policy";
import type { OwnHandlers, UpstreamFetch } from "../../proxy";
import type { SessionCa } from "../../tls";

/** The CA's X.509 code, which loads with the network's (start-guest.ts, prepareNetwork). */
export { createSessionCa, loadSessionCa } from "../../tls";
export { PROXY_PORT };

export type PageNetwork = GuestNetwork;

export interface PageNetworkOptions {
  /** The guest's NIC (src/page/emulator/boot.ts). */
  link: FrameLink;
  log: EventLog;
  policy: PolicyHolder;
  ca: SessionCa;
  handlers?: OwnHandlers;
  corsProxy?: string;
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
 * The page as the guest's only network peer (src/guest-network assembles it), with the
 * browser's fetch() as the upstream, or the Wisp relay with the page's own TLS client when one is set.
 */
export function connectPageNetwork(options: PageNetworkOptions): PageNetwork {
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
  return connectGuestNetwork({
    link: options.link,
    log: options.log,
    policy: options.policy,
    ca: options.ca,
    // With a relay the page is the TLS client (src/page/relay); without one, the browser's fetch().
    fetch: (url, init) => (relayed()?.fetch ?? browserFetch)(url, init),
    upstreamPath: () => (relayed() ? "wisp-relay" : "browser-fetch"),
    // Head and idle timeouts (the idle one at its 5 min default) run on the page's own timers.
    timers: systemTimers,
    ...(options.handlers ? { handlers: options.handlers } : {}),
    ...(options.corsProxy ? { corsProxy: options.corsProxy } : {}),
  });
}

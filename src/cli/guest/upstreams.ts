import type { PolicyHolder } from "../../policy";
import type { ResolveHost, UpstreamFetch, UpstreamPath } from "../../proxy";
import { createNodeUpstream } from "../proxy-upstream";
import { recorded } from "../recordings";

/**
 * Where the headless guest's allowed requests go. The proxy decides first, exactly as in the
 * page; only what it allows reaches one of these:
 * - recordings: answered from a directory in the recordings layout (src/cli/recordings.ts),
 *   404 "no recording" for a URL it does not hold, so a lesson run never reaches the internet;
 * - a local server: every request sent to it instead (its path and query kept, the original
 *   Host header kept, so one test server can play every upstream);
 * - the network: the Node host's guarded client, as `npx tab proxy` uses (DNS checked, private
 *   addresses refused, the checked address pinned).
 */
export type UpstreamChoice = { kind: "recordings"; dirs: readonly string[] } | { kind: "local"; url: string } | { kind: "network" };

export interface GuestUpstream {
  fetch: UpstreamFetch;
  upstreamPath: () => UpstreamPath;
  resolveHost?: ResolveHost;
  /** Says where requests go, for the runner's first line. */
  describe: string;
}

export function createGuestUpstream(choice: UpstreamChoice, policy: PolicyHolder): GuestUpstream {
  if (choice.kind === "recordings") {
    const dirs = [...choice.dirs];
    return {
      describe: dirs.length > 0 ? `upstreams from recordings in ${dirs.join(", ")}` : "no upstream: every allowed request gets 404",
      upstreamPath: () => "direct",
      fetch: async (url) => {
        const found = recorded(dirs, url);
        if (!found) return new Response("no recording\n", { status: 404, headers: { "content-type": "text/plain" } });
        // A 1xx, 204 or 304 answer carries no body.
        const bodyless = found.status === 204 || found.status === 304 || found.status < 200;
        return new Response(bodyless ? null : new Uint8Array(found.body), { status: found.status, headers: found.headers });
      },
    };
  }
  if (choice.kind === "local") {
    const base = new URL(choice.url);
    return {
      describe: `every allowed request sent to ${base.origin}`,
      upstreamPath: () => "direct",
      fetch: (url, init) => {
        const target = new URL(url);
        const local = new URL(`${target.pathname}${target.search}`, base);
        return globalThis.fetch(local, {
          method: init.method,
          headers: [...init.headers.filter(([name]) => name.toLowerCase() !== "host"), ["x-tab-upstream", target.host]],
          body: init.body,
          redirect: "manual",
        });
      },
    };
  }
  const upstream = createNodeUpstream({ policy: () => policy.current() });
  return {
    describe: "upstreams over the network (the Node host's guarded client)",
    upstreamPath: () => "direct",
    fetch: upstream.fetch,
    resolveHost: upstream.resolveHost,
  };
}

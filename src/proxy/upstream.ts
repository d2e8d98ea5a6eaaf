import { allow, guardRefusal, refuse, type Verdict } from "../log";
import { messageOf } from "../platform";
import { hostKey, type Target } from "../policy";
import { unforwardableMethod } from "./head";
import { upstreamClock, upstreamTimeoutReason, within } from "./timeouts";
import type { ProxyOptions, UpstreamPath } from "./types";

/**
 * The fetch path every allowed request takes (absolute-form, tunnel, /v0/fetch): the host's
 * name check, `fetch(url, { redirect: "manual" })`, and what a redirect or an unreadable
 * answer means. A redirect is never followed.
 */

export type UpstreamOutcome =
  | { kind: "refused"; verdict: Verdict; status?: number; path?: UpstreamPath }
  | { kind: "response"; verdict: Verdict; response: Response; via: string; path: UpstreamPath };

export interface UpstreamRequest {
  target: Target;
  method: string;
  headers: [string, string][];
  body: Uint8Array | null;
}

export type UpstreamDeps = Pick<ProxyOptions, "fetch" | "resolveHost" | "corsProxy" | "timers" | "upstreamTimeoutMs" | "upstreamPath">;
type Deps = UpstreamDeps;

export async function fetchUpstream(deps: Deps, request: UpstreamRequest): Promise<UpstreamOutcome> {
  const { target } = request;
  // Last line of defence: a method no host can send as given (callers check earlier, before reading a body).
  const methodProblem = unforwardableMethod(request.method);
  if (methodProblem) return { kind: "refused", verdict: refuse("bad-request", methodProblem, "proxy") };
  const clock = upstreamClock(deps);
  let reached: { path?: UpstreamPath } = {};
  const timedOut = (what: string): UpstreamOutcome => ({
    kind: "refused",
    verdict: refuse("upstream-error", upstreamTimeoutReason(clock?.ms ?? 0, what), "proxy"),
    status: 504,
    ...reached,
  });
  let address: string | undefined;
  if (deps.resolveHost) {
    let resolution: Awaited<ReturnType<NonNullable<Deps["resolveHost"]>>>;
    try {
      const resolved = await within(clock, deps.resolveHost(target.host));
      if (resolved.kind === "timeout") return timedOut(`${target.host} was not resolved`);
      resolution = resolved.value;
    } catch (error) {
      return { kind: "refused", verdict: refuse("upstream-error", `could not resolve ${target.host}: ${message(error)}`, "proxy") };
    }
    if (!resolution.verdict.allowed) return { kind: "refused", verdict: resolution.verdict };
    address = resolution.address;
  }
  const init = {
    method: request.method,
    headers: request.headers,
    body: request.body && request.body.length > 0 ? new Uint8Array(request.body) : null,
    redirect: "manual" as const,
    ...(address === undefined ? {} : { address }),
  };
  let response: Response;
  let via = target.url;
  // Read just before the call, so the path recorded is the one this request took.
  let path: UpstreamPath = deps.upstreamPath?.() ?? "browser-fetch";
  // A fetch that never settles must not hold the exchange for ever; a late answer is discarded.
  const timedFetch = async (url: string, fetchInit: typeof init): Promise<Response | null> => {
    const pending = deps.fetch(url, fetchInit);
    const outcome = await within(clock, pending);
    if (outcome.kind === "value") return outcome.value;
    pending.then(discard, () => undefined);
    return null;
  };
  reached = { path };
  try {
    const answered = await timedFetch(target.url, init);
    if (answered === null) return timedOut(`${target.url} did not answer`);
    response = answered;
  } catch (error) {
    // A guard's verdict (private-address, upstream-cert-invalid…) is the outcome, not a network failure.
    const guarded = guardRefusal(error);
    if (guarded) return { kind: "refused", verdict: guarded, path };
    const failed = (reason: string): UpstreamOutcome => ({ kind: "refused", verdict: refuse("upstream-error", reason, "proxy"), path });
    if (path === "wisp-relay") return failed(`fetching ${target.url} through the Wisp relay failed: ${message(error)}`);
    if (!(error instanceof TypeError)) return failed(`fetching ${target.url} failed: ${message(error)}`);
    if (!deps.corsProxy) return { kind: "refused", verdict: unreadable(target.url, error, "", path === "browser-fetch"), path };
    via = corsProxyUrl(deps.corsProxy, target.url);
    path = "cors-relay";
    reached = { path };
    try {
      const answered = await timedFetch(via, { ...init, address: undefined });
      if (answered === null) return timedOut(`the CORS relay did not answer for ${target.url}`);
      response = answered;
    } catch (relayError) {
      return { kind: "refused", verdict: unreadable(target.url, relayError, " (the CORS relay failed too)", true), path };
    }
  }

  if (response.type === "opaqueredirect" || response.status === 0) {
    await discard(response);
    return {
      kind: "refused",
      verdict: refuse(
        "redirect-other-host",
        `${target.url} answered with a redirect whose target the browser hides (opaque redirect); redirects are never followed and an unseen target may be another host (through a Wisp relay, ?relay=, the page sees the target)`,
        "proxy",
      ),
      path,
    };
  }
  const location = response.headers.get("location");
  if (response.status >= 300 && response.status < 400 && location !== null) {
    const next = resolveLocation(location, target.url);
    if (next === null || next.host !== target.host) {
      await discard(response);
      return {
        kind: "refused",
        verdict: refuse(
          "redirect-other-host",
          `${target.url} redirected to ${next?.host ?? JSON.stringify(location.slice(0, 100))}, another host; the redirect was not followed`,
          "proxy",
        ),
        path,
      };
    }
    return {
      kind: "response",
      verdict: allow(`${target.url} redirected within ${target.host}; passed to the client, not followed`, "proxy"),
      response,
      via,
      path,
    };
  }
  return { kind: "response", verdict: allow(`${request.method} ${target.url} fetched${PATH_NOTE[path]}`, "proxy"), response, via, path };
}

const PATH_NOTE: Record<UpstreamPath, string> = {
  "browser-fetch": "",
  direct: "",
  "cors-relay": " through the CORS relay",
  "wisp-relay": " through the Wisp relay (TLS by the page, certificate verified)",
};

/** How to reach a host that does not answer CORS: the Wisp relay (docs/guide.md, "Reaching hosts without CORS"). */
export const NO_CORS_HINT =
  "to reach hosts without CORS, run `npx tab relay` and open the page with ?relay=ws://127.0.0.1:5001/ (or set the relay in the Policy panel)";

function unreadable(url: string, error: unknown, extra: string, hint: boolean): Verdict {
  return refuse(
    "upstream-unreadable",
    `the browser could not read ${url}: CORS (the server does not allow this page to read it) or a network failure${extra}: ${message(error)}${hint ? `; ${NO_CORS_HINT}` : ""}`,
    "proxy",
  );
}

function resolveLocation(location: string, base: string): { host: string } | null {
  try {
    const url = new URL(location, base);
    return { host: hostKey(url.hostname) };
  } catch {
    return null;
  }
}

/** The CORS proxy's URL for an upstream URL: `{url}` in it is replaced by the encoded URL, else the URL is appended. */
export function corsProxyUrl(corsProxy: string, url: string): string {
  const encoded = encodeURIComponent(url);
  return corsProxy.includes("{url}") ? corsProxy.replace("{url}", encoded) : `${corsProxy}${encoded}`;
}

export async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to do: the body was never going to be used.
  }
}

function message(error: unknown): string {
  return messageOf(error);
}

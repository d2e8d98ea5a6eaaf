import { readCapped } from "../bytes";
import { guardRefusal, refuse, type Verdict } from "../log";
import { checkRemoteUrl } from "./address";

/**
 * The fetch the resolver is given (the browser's fetch, the Node host's guarded fetch, or a
 * recording). A host's guard may reject with an error named `FetchRefused` carrying a
 * `verdict` (`private-address`, `port-not-allowed`, `redirect-other-host`…): that verdict is
 * the outcome, not a network failure worth a stale-cache fallback.
 */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export type FetchOutcome =
  | { ok: true; bytes: Uint8Array }
  /** `transient`: a network failure worth falling back to a stale cache entry for. */
  | { ok: false; verdict: Verdict; transient: boolean };

export interface FetchLimits {
  maxBytes: number;
  timeoutMs?: number;
}

/**
 * One fetch under the SSRF rules: https only, no IP literals, no redirects
 * (`redirect: "manual"`; a 3xx or an opaque redirect is a refusal), status exactly 200, and
 * a size cap enforced while the body streams in.
 */
export async function fetchGuarded(url: string, fetch: FetchLike, limits: FetchLimits): Promise<FetchOutcome> {
  const bad = checkRemoteUrl(url);
  if (bad) return { ok: false, verdict: bad, transient: false };
  let response: Response;
  try {
    const init: RequestInit = { redirect: "manual", credentials: "omit" };
    if (limits.timeoutMs !== undefined) init.signal = AbortSignal.timeout(limits.timeoutMs);
    response = await fetch(url, init);
  } catch (error) {
    const refused = guardRefusal(error);
    if (refused) return { ok: false, verdict: refused, transient: false };
    return { ok: false, verdict: refuse("fetch-failed", `fetching ${url} failed: ${describeError(error)}`, "resolver"), transient: true };
  }
  if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel();
    const to = response.headers.get("location");
    return {
      ok: false,
      verdict: refuse(
        "bad-status",
        `${url} answered a redirect${to ? ` to ${to.slice(0, 200)}` : ""}; redirects are never followed`,
        "resolver",
      ),
      transient: false,
    };
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return {
      ok: false,
      verdict: refuse("bad-status", `${url} answered ${response.status}; only 200 is accepted`, "resolver"),
      transient: false,
    };
  }
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await response.body?.cancel();
    return { ok: false, verdict: tooLarge(url, limits.maxBytes), transient: false };
  }
  const body = await readCapped(response.body, limits.maxBytes);
  if (body.ok) return { ok: true, bytes: body.bytes };
  if (body.problem === "too-large") return { ok: false, verdict: tooLarge(url, limits.maxBytes), transient: false };
  return { ok: false, verdict: refuse("fetch-failed", `reading ${url} failed: ${describeError(body.error)}`, "resolver"), transient: true };
}

function tooLarge(url: string, max: number): Verdict {
  return refuse("too-large", `${url} is larger than the ${max}-byte cap`, "resolver");
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : "";
    return `${error.name}: ${error.message}${detail}`;
  }
  return String(error);
}

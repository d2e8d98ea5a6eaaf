import { readCapped } from "../bytes";
import { guardRefusal, refuse, type Verdict } from "../log";
import { messageOf } from "../platform";

/**
 * The egress skills use, injected (the page passes the browser's fetch, the CLI its guarded
 * fetch, a test a recorded one). Only GET, never with credentials, never following redirects: a
 * pinned address that redirects is no longer the address we pinned. A host's guard may reject
 * with an error named `FetchRefused` carrying a `verdict` (`private-address`,
 * `port-not-allowed`…): that verdict is the outcome, reported as is.
 */
export type SkillsFetch = (url: string, init: SkillsFetchInit) => Promise<Response>;

export interface SkillsFetchInit {
  method: "GET";
  headers: Record<string, string>;
  redirect: "manual";
  credentials: "omit";
}

/** What the GitHub REST API asks clients to send. */
export const GITHUB_API_HEADERS = { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" };

export type Fetched = { ok: true; bytes: Uint8Array; contentType: string } | { ok: false; verdict: Verdict };

/**
 * GETs `url` and reads at most `cap` bytes of its body while it streams; the first byte over the
 * cap cancels the stream and refuses (`too-large`), so a hostile server cannot make us buffer
 * more than the cap. Only status 200 is a candidate for success; whether it is one is decided
 * by the caller's parse, never by the status (a missing file may come back as an HTML page with status 200).
 */
export async function fetchCapped(fetch: SkillsFetch, url: string, cap: number, headers: Record<string, string> = {}): Promise<Fetched> {
  let response: Response;
  try {
    response = await fetch(url, { method: "GET", headers, redirect: "manual", credentials: "omit" });
  } catch (error) {
    const refused = guardRefusal(error);
    if (refused) return { ok: false, verdict: refused };
    return { ok: false, verdict: refuse("fetch-failed", `GET ${url} failed: ${errorMessage(error)}`, "skills") };
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    const why = response.status === 0 || (response.status >= 300 && response.status < 400) ? " (redirects are not followed)" : "";
    return { ok: false, verdict: refuse("bad-status", `GET ${url} answered ${response.status}${why}`, "skills") };
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > cap) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, verdict: tooLarge(url, cap) };
  }
  const body = await readCapped(response.body, cap);
  if (!body.ok && body.problem === "too-large") return { ok: false, verdict: tooLarge(url, cap) };
  if (!body.ok) return { ok: false, verdict: refuse("fetch-failed", `reading ${url} failed: ${errorMessage(body.error)}`, "skills") };
  return { ok: true, bytes: body.bytes, contentType: response.headers.get("content-type") ?? "" };
}

function tooLarge(url: string, cap: number): Verdict {
  return refuse("too-large", `${url} is larger than the ${cap}-byte cap`, "skills");
}

export function errorMessage(error: unknown): string {
  return messageOf(error);
}

/** JSON from bytes, or undefined: the caller turns "did not parse" into its own refusal. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

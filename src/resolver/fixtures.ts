import { z } from "zod";
import { decodeUtf8Strict } from "../bytes";
import type { FetchLike } from "./fetcher";
import type { LocalFiles } from "./local-files";
import { joinPath, resolveDotSegments } from "./paths";

/**
 * Where a recorded response for `url` lives under a fixtures root (README.md, "Fixtures"):
 * `<host>/<path>`; a path ending in `/` gets `_index`; a query is appended as
 * `__query=<query>`. Null for URLs that cannot be recorded (not https, or `..` left over).
 */
export function fixturePath(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:") return null;
  let path = parsed.pathname;
  if (path.endsWith("/")) path += "_index";
  if (parsed.search !== "") path += `__query=${parsed.search.slice(1).replace(/\//g, "%2F")}`;
  const rel = `${parsed.host}${path}`;
  const normal = resolveDotSegments(rel);
  if (normal !== rel || normal.startsWith("..")) return null;
  return normal;
}

const Headers = z.record(z.string(), z.string());

/**
 * A fetch that answers from recordings (`--fixtures DIR` on the CLI, the sample bundle in
 * the page): the body file, plus optional `<file>.status` (a number) and
 * `<file>.headers.json` (an object of strings). No recording at all is a network error, so
 * the resolver reports `fetch-failed` exactly as when the network is down.
 */
export function createFixtureFetch(files: LocalFiles, root: string): FetchLike {
  return async (url) => {
    const rel = fixturePath(url);
    if (rel === null) throw new TypeError(`no recording can exist for ${url}`);
    const path = joinPath(root, rel);
    const [body, statusText, headersText] = await Promise.all([
      files.read(path),
      files.read(`${path}.status`),
      files.read(`${path}.headers.json`),
    ]);
    if (body === null && statusText === null) throw new TypeError(`no recorded response for ${url}`);
    const status = statusText === null ? 200 : Number((decodeUtf8Strict(statusText) ?? "").trim());
    if (!Number.isInteger(status) || status < 200 || status > 599) throw new TypeError(`bad recorded status for ${url}`);
    let headers: Record<string, string> = {};
    if (headersText !== null) {
      const parsed = Headers.safeParse(JSON.parse(decodeUtf8Strict(headersText) ?? "null"));
      if (!parsed.success) throw new TypeError(`bad recorded headers for ${url}`);
      headers = parsed.data;
    }
    const nullBody = status === 204 || status === 205 || status === 304;
    return new Response(nullBody || body === null ? null : (body as BufferSource), { status, headers });
  };
}

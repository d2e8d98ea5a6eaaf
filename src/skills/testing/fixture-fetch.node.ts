import { readFile, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

/**
 * A fetch answered from recorded files (the `--fixtures DIR` layout shared with the resolver):
 *
 *   https://HOST/PATH        → DIR/HOST/PATH
 *   https://HOST/PATH?QUERY  → DIR/HOST/PATH__query=QUERY  (the resolver's spelling, src/resolver
 *                              README "Fixtures": "/" in the query as %2F); also accepted:
 *                              DIR/HOST/PATH?QUERY and DIR/HOST/PATH%3FQUERY
 *   a PATH ending in "/"     → DIR/HOST/PATH/_index
 *   a PATH that is a directory → DIR/HOST/PATH/_index (so /repos/o/r and /repos/o/r/commits/main
 *                              can both be recorded; the resolver's fetch lacks this case)
 *
 * Optional siblings: `<file>.status` (a number, default 200) and `<file>.headers.json` (an object
 * of header names to values). A `.status` with no body file answers that status with an empty
 * body. No file → 404. Nothing outside DIR is ever read. Every request is recorded in `requests`.
 */
export interface FixtureFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  readonly requests: string[];
}

export const DIRECTORY_FILE = "_index";

export function createFixtureFetch(dir: string): FixtureFetch {
  const root = resolve(dir);
  const requests: string[] = [];
  const fetch = async (input: string | URL | Request): Promise<Response> => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    requests.push(href);
    const url = new URL(href);
    for (const candidate of candidatePaths(root, url)) {
      const answer = await readAnswer(root, candidate);
      if (answer) return answer;
    }
    return new Response(`no fixture for ${href}\n`, { status: 404, headers: { "content-type": "text/plain" } });
  };
  return Object.assign(fetch, { requests });
}

function candidatePaths(root: string, url: URL): string[] {
  const path = url.pathname; // kept verbatim, percent-encoding and all
  const base = join(root, url.host, ...path.split("/").filter((s) => s.length > 0));
  const dirBase = path.endsWith("/") || path === "" ? join(base, DIRECTORY_FILE) : null;
  const bases = dirBase ? [dirBase] : [base, join(base, DIRECTORY_FILE)];
  if (url.search === "") return bases;
  const query = url.search.slice(1);
  return bases.flatMap((b) => [`${b}__query=${query.replace(/\//g, "%2F")}`, `${b}?${query}`, `${b}%3F${query}`]);
}

async function readAnswer(root: string, file: string): Promise<Response | null> {
  const rel = relative(root, file);
  if (rel.startsWith("..") || rel.startsWith(sep) || rel === "") return null;
  const body = await readRegularFile(file);
  const statusText = await readRegularFile(`${file}.status`);
  if (body === null && statusText === null) return null;
  const status = statusText === null ? 200 : Number.parseInt(new TextDecoder().decode(statusText).trim(), 10);
  const headersBytes = await readRegularFile(`${file}.headers.json`);
  const headers = headersBytes === null ? {} : (JSON.parse(new TextDecoder().decode(headersBytes)) as Record<string, string>);
  const nullBody = status === 204 || status === 304 || (status >= 100 && status < 200);
  return new Response(nullBody ? null : ((body ?? new Uint8Array(0)) as BodyInit), { status, headers });
}

async function readRegularFile(path: string): Promise<Uint8Array | null> {
  try {
    if (!(await stat(path)).isFile()) return null;
    return new Uint8Array(await readFile(path));
  } catch {
    return null;
  }
}

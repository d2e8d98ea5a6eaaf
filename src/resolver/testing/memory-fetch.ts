import { sha256Hex, utf8 } from "../../bytes";
import type { FetchLike } from "../fetcher";
import { gitBlobSha1 } from "../github";
import { type TreeFile, treeHash } from "../tree-hash";

export type Route =
  | string
  | Uint8Array
  | { status: number; body?: string | Uint8Array; headers?: Record<string, string> }
  | "network-error";

/** A recorded web for tests: URL → response; records every URL asked for. */
export function createMemoryFetch(routes: Record<string, Route>): FetchLike & { calls: string[]; routes: Record<string, Route> } {
  const calls: string[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    calls.push(url);
    if (init.redirect !== "manual") throw new Error("the resolver must never follow redirects");
    const route = fetch.routes[url];
    if (route === undefined || route === "network-error") throw new TypeError(`fetch failed: ${url}`);
    if (typeof route === "string" || route instanceof Uint8Array)
      return new Response(typeof route === "string" ? route : (route as BufferSource), { status: 200 });
    const body = route.body === undefined ? null : typeof route.body === "string" ? route.body : (route.body as BufferSource);
    return new Response(body, { status: route.status, ...(route.headers ? { headers: route.headers } : {}) });
  };
  fetch.calls = calls;
  fetch.routes = routes;
  return fetch;
}

/** A fake GitHub repository: trees API listing and raw files, plus the directory pins. */
export async function githubRepo(owner: string, repo: string, commit: string, files: Record<string, string>) {
  const routes: Record<string, Route> = {};
  const tree: { path: string; mode: string; type: string; sha: string; size: number }[] = [];
  for (const [path, text] of Object.entries(files)) {
    const bytes = utf8(text);
    tree.push({ path, mode: "100644", type: "blob", sha: await gitBlobSha1(bytes), size: bytes.length });
    routes[`https://raw.githubusercontent.com/${owner}/${repo}/${commit}/${path}`] = text;
  }
  routes[`https://api.github.com/repos/${owner}/${repo}/git/trees/${commit}?recursive=1`] = JSON.stringify({
    sha: commit,
    truncated: false,
    tree,
  });
  const dirPin = async (dir: string) => {
    const entries: TreeFile[] = [];
    for (const [path, text] of Object.entries(files))
      if (path.startsWith(`${dir}/`)) entries.push({ path: path.slice(dir.length + 1), sha256: await sha256Hex(utf8(text)) });
    return treeHash(entries);
  };
  const treeUrl = (dir: string) => `https://github.com/${owner}/${repo}/tree/${commit}/${dir}`;
  const rawUrl = (path: string) => `https://raw.githubusercontent.com/${owner}/${repo}/${commit}/${path}`;
  return { routes, tree, dirPin, treeUrl, rawUrl };
}

export const pinOf = async (text: string) => sha256Hex(utf8(text));

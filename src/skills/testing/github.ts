import { utf8 } from "../../bytes";
import { gitBlobSha1, rawUrl } from "../acquire-git";
import type { RouteAnswer } from "./route-fetch";

/**
 * Builds the GitHub API answers for a repository at one commit, the way the real API shapes
 * them: the repository (with `default_branch`), the branch head commit, the recursive tree
 * (blob ids computed from the contents, parent directories listed as trees), and the raw files.
 */
export type FileSpec =
  | string
  | Uint8Array
  | { content?: string | Uint8Array; mode?: string; type?: "blob" | "commit"; size?: number; serve?: string | Uint8Array };

export interface RepoSpec {
  owner?: string;
  repo?: string;
  sha?: string;
  branch?: string;
  files: Record<string, FileSpec>;
  truncated?: boolean;
}

export const SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8";

export async function githubRepo(spec: RepoSpec): Promise<Record<string, RouteAnswer>> {
  const owner = spec.owner ?? "acme";
  const repo = spec.repo ?? "skills-repo";
  const sha = spec.sha ?? SHA;
  const branch = spec.branch ?? "main";
  const api = `https://api.github.com/repos/${owner}/${repo}`;
  const routes: Record<string, RouteAnswer> = {
    [api]: { body: { name: repo, full_name: `${owner}/${repo}`, private: false, default_branch: branch } },
    [`${api}/commits/${encodeURIComponent(branch)}`]: { body: { sha, commit: { message: "head", tree: { sha: "0".repeat(40) } } } },
  };
  const dirs = new Set<string>();
  const tree: object[] = [];
  for (const [path, file] of Object.entries(spec.files)) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    const f = typeof file === "string" || file instanceof Uint8Array ? { content: file } : file;
    if (f.type === "commit") {
      tree.push({ path, mode: "160000", type: "commit", sha: "0123456789abcdef0123456789abcdef01234567" });
      continue;
    }
    const bytes = typeof f.content === "string" ? utf8(f.content) : (f.content ?? new Uint8Array(0));
    tree.push({ path, mode: f.mode ?? "100644", type: "blob", sha: await gitBlobSha1(bytes), size: f.size ?? bytes.byteLength });
    const served = f.serve === undefined ? bytes : typeof f.serve === "string" ? utf8(f.serve) : f.serve;
    routes[rawUrl(owner, repo, sha, path)] = { body: served };
  }
  for (const dir of dirs) {
    if (!(dir in spec.files)) tree.push({ path: dir, mode: "040000", type: "tree", sha: "1".repeat(40) });
  }
  tree.sort((a, b) => ((a as { path: string }).path < (b as { path: string }).path ? -1 : 1));
  routes[`${api}/git/trees/${sha}?recursive=1`] = { body: { sha: "2".repeat(40), tree, truncated: spec.truncated ?? false } };
  return routes;
}

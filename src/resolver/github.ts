import { z } from "zod";
import { toHex, utf8 } from "../bytes";

/** A skill/plugin directory URL: `https://github.com/OWNER/REPO/tree/REF/PATH`. */
export interface GithubTreeRef {
  owner: string;
  repo: string;
  ref: string;
  /** The directory inside the repository, no leading or trailing slash ("" is the root). */
  path: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

export function parseGithubTreeUrl(url: string): GithubTreeRef | null {
  // Dot segments (plain or escaped) would be removed by the URL parser: refuse them instead.
  if (/\/(\.|%2e){1,2}(\/|$|[?#])/i.test(url) || url.includes("\\")) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:" || parsed.host !== "github.com" || parsed.search !== "") return null;
  const segments = parsed.pathname.split("/").slice(1);
  if (segments[segments.length - 1] === "") segments.pop();
  const [owner, repo, tree, ref, ...rest] = segments;
  if (!owner || !repo || tree !== "tree" || !ref) return null;
  if (![owner, repo, ref].every((s) => NAME.test(s) && s !== "." && s !== "..")) return null;
  let decoded: string[];
  try {
    decoded = rest.map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  if (decoded.some((s) => s === "" || s === "." || s === ".." || s.includes("/"))) return null;
  return { owner, repo, ref, path: decoded.join("/") };
}

/** The trees API listing the whole commit (readable by a page: api.github.com sends CORS headers). */
export function treesApiUrl(ref: GithubTreeRef): string {
  return `https://api.github.com/repos/${ref.owner}/${ref.repo}/git/trees/${ref.ref}?recursive=1`;
}

/** A file's bytes at the pinned ref (raw.githubusercontent.com also sends CORS headers). */
export function rawFileUrl(ref: GithubTreeRef, filePath: string): string {
  const full = ref.path === "" ? filePath : `${ref.path}/${filePath}`;
  return `https://raw.githubusercontent.com/${ref.owner}/${ref.repo}/${ref.ref}/${full.split("/").map(encodeURIComponent).join("/")}`;
}

export const GithubTree = z.object({
  sha: z.string(),
  truncated: z.boolean(),
  tree: z.array(
    z.object({
      path: z.string(),
      mode: z.string(),
      type: z.string(),
      sha: z.string(),
      size: z.number().int().nonnegative().optional(),
    }),
  ),
});
export type GithubTree = z.infer<typeof GithubTree>;

export interface DirectoryLimits {
  maxFiles: number;
  maxTotalBytes: number;
}

export interface TreeListing {
  path: string;
  /** Git's blob id, checked against the fetched bytes. */
  blobSha: string;
  size: number;
}

export type TreeSelection =
  | { ok: true; files: TreeListing[] }
  | { ok: false; code: "payload-path-refused" | "truncated-tree" | "too-large" | "unparsable"; reason: string };

/** The regular files under the directory; symlinks (120000) and submodules (commit) refuse. */
export function selectTreeFiles(tree: GithubTree, dir: string, limits: DirectoryLimits): TreeSelection {
  if (tree.truncated)
    return { ok: false, code: "truncated-tree", reason: "the trees API answered a truncated listing; refusing a partial directory" };
  const prefix = dir === "" ? "" : `${dir}/`;
  const files: TreeListing[] = [];
  let total = 0;
  for (const entry of tree.tree) {
    if (!entry.path.startsWith(prefix)) continue;
    const rel = entry.path.slice(prefix.length);
    if (entry.type === "tree") continue;
    if (entry.type === "commit")
      return { ok: false, code: "payload-path-refused", reason: `${rel} is a submodule; submodules are refused` };
    if (entry.mode === "120000") return { ok: false, code: "payload-path-refused", reason: `${rel} is a symlink; symlinks are refused` };
    if (entry.type !== "blob" || !["100644", "100755"].includes(entry.mode))
      return { ok: false, code: "payload-path-refused", reason: `${rel} is not a regular file (mode ${entry.mode})` };
    if (entry.size === undefined) return { ok: false, code: "unparsable", reason: `the listing gives no size for ${rel}` };
    total += entry.size;
    files.push({ path: rel, blobSha: entry.sha, size: entry.size });
    if (files.length > limits.maxFiles) return { ok: false, code: "too-large", reason: `more than ${limits.maxFiles} files` };
    if (total > limits.maxTotalBytes) return { ok: false, code: "too-large", reason: `more than ${limits.maxTotalBytes} bytes in total` };
  }
  if (files.length === 0) return { ok: false, code: "unparsable", reason: `no files under ${dir || "the repository root"}` };
  return { ok: true, files };
}

/** Git's blob id: sha1("blob <size>\0" + bytes). */
export async function gitBlobSha1(bytes: Uint8Array): Promise<string> {
  const header = utf8(`blob ${bytes.length}\0`);
  const all = new Uint8Array(header.length + bytes.length);
  all.set(header);
  all.set(bytes, header.length);
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-1", all)));
}

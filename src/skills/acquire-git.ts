import { sha256Hex, toHex, utf8 } from "../bytes";
import { allow, refuse, type Verdict } from "../log";
import { type AcquireDeps, type Acquired, admit, checkText } from "./admit";
import { fetchCapped, GITHUB_API_HEADERS, parseJsonBytes } from "./fetch";
import { GITHUB_API, type PinnedGitAddress } from "./resolve";
import { logStep } from "./steps";
import { type AdmittedFile, judgeListing, MAX_FILE_BYTES, TreeListing } from "./tree";

/**
 * Acquisition from a full commit SHA (one of the two pinned addresses; docs/decisions/0003-skills-from-a-public-registry.md): list the tree at the SHA,
 * judge the listing, and only then fetch the admitted files from raw.githubusercontent.com at
 * the same SHA, each checked against the blob id the listing gave for it.
 */

export const RAW_GITHUB = "https://raw.githubusercontent.com";
/** GitHub caps a recursive listing at 100,000 entries / 7 MB and then sets `truncated`. */
const MAX_TREE_BYTES = 8 * 1024 * 1024;

export async function acquireFromCommit(address: PinnedGitAddress, deps: AcquireDeps): Promise<Acquired> {
  const { id, owner, repo, slug, commitSha } = address;
  const refused = (step: "list" | "fetch" | "verify", verdict: Verdict, url?: string): Acquired => {
    logStep(deps.log, step, { id, detail: "acquisition refused", ...(url ? { url } : {}) }, verdict);
    return { ok: false, verdict };
  };

  const treeUrl = `${GITHUB_API}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/git/trees/${commitSha}?recursive=1`;
  const treeBytes = await fetchCapped(deps.fetch, treeUrl, MAX_TREE_BYTES, GITHUB_API_HEADERS);
  if (!treeBytes.ok) return refused("list", treeBytes.verdict, treeUrl);
  const listing = TreeListing.safeParse(parseJsonBytes(treeBytes.bytes));
  if (!listing.success) {
    return refused("list", refuse("unparsable", `${treeUrl} did not parse as a tree listing with a truncated flag`, "skills"), treeUrl);
  }
  const judged = judgeListing(listing.data, repo, slug);
  if (!judged.ok) return refused("list", judged.verdict, treeUrl);
  const { root, skillMd, scripts } = judged.inventory;
  // The root's parent directories are publisher-chosen: percent-encode them wherever they are shown.
  const rootPath = root.split("/").map(encodeURIComponent).join("/");
  logStep(
    deps.log,
    "list",
    { id, url: treeUrl, detail: `root /${rootPath}: SKILL.md and ${scripts.length} scripts` },
    allow("the listing is inside the whitelist", "skills"),
  );

  const fetched: { file: AdmittedFile; bytes: Uint8Array }[] = [];
  for (const file of [skillMd, ...scripts]) {
    const url = rawUrl(owner, repo, commitSha, file.path);
    const got = await fetchCapped(deps.fetch, url, MAX_FILE_BYTES);
    if (!got.ok) return refused("fetch", got.verdict, url);
    const sha256 = await sha256Hex(got.bytes);
    logStep(deps.log, "fetch", { id, url, sha256, detail: `${file.relative}: ${got.bytes.byteLength} bytes` }, allow("fetched", "skills"));
    if ((await gitBlobSha1(got.bytes)) !== file.blobSha) {
      return refused(
        "verify",
        refuse("hash-mismatch", `${file.relative} does not hash to blob ${file.blobSha} named by the tree`, "skills"),
        url,
      );
    }
    const bad = checkText(got.bytes, file.relative);
    if (bad) return refused("verify", bad, url);
    fetched.push({ file, bytes: got.bytes });
  }
  logStep(
    deps.log,
    "verify",
    { id, detail: `${fetched.length} files match the tree's blob ids` },
    allow("verified against the commit tree", "skills"),
  );

  const [skillMdBytes, ...scriptBytes] = fetched;
  return admit(
    {
      discoveryId: id,
      method: "git-commit-sha",
      sourceUrl: `https://github.com/${owner}/${repo}/tree/${commitSha}${root === "" ? "" : `/${rootPath}`}`,
      commitSha,
      indexDigest: null,
      pin: `${owner}/${repo}/${slug}@${commitSha}`,
      resolvedAt: address.resolvedAt,
      skillMd: (skillMdBytes as { bytes: Uint8Array }).bytes,
      scripts: scriptBytes.map((s) => ({ path: s.file.relative, bytes: s.bytes })),
    },
    deps,
  );
}

/** `raw.githubusercontent.com/OWNER/REPO/SHA/PATH`, each path segment percent-encoded. */
export function rawUrl(owner: string, repo: string, sha: string, path: string): string {
  const encodedPath = path.split("/").map(encodeURIComponent).join("/");
  return `${RAW_GITHUB}/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/${sha}/${encodedPath}`;
}

/** Git's blob id: SHA-1 over `blob <length>\0` and the bytes. */
export async function gitBlobSha1(bytes: Uint8Array): Promise<string> {
  const header = utf8(`blob ${bytes.byteLength}\0`);
  const whole = new Uint8Array(header.byteLength + bytes.byteLength);
  whole.set(header, 0);
  whole.set(bytes, header.byteLength);
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-1", whole)));
}

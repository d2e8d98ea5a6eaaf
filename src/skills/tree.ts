import { z } from "zod";
import { refuse, type Verdict } from "../log";
import { sanitizeRegistryString } from "./sanitize";

/**
 * The payload inventory of a commit (what a skill may contain is enforced on the payload, never assumed):
 * the recursive tree listing, the candidate skill roots in it, and the path whitelist judged on
 * the listing alone, before a single file is fetched. Pure: no I/O.
 */

/** At most this many scripts are admitted per acquisition; decided on the listing. */
export const MAX_SCRIPTS = 16;
/** At most this many bytes per admitted file (enforced on the listing and while streaming). */
export const MAX_FILE_BYTES = 256 * 1024;
/** A script's file name: printable ASCII, no separator, no control codepoint, no leading dot. */
export const SCRIPT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const REGULAR_FILE_MODES = new Set(["100644", "100755"]);
/** How many offending paths a refusal names before it says "and N more". */
const NAMED_PATHS = 20;

const TreeEntry = z.object({
  path: z.string().min(1),
  mode: z.string(),
  type: z.enum(["blob", "tree", "commit"]),
  sha: z.string(),
  size: z.number().int().nonnegative().optional(),
});
export type TreeEntry = z.infer<typeof TreeEntry>;

/** `GET /repos/O/R/git/trees/SHA?recursive=1`; `truncated` is required, not defaulted. */
export const TreeListing = z.object({ sha: z.string(), tree: z.array(TreeEntry), truncated: z.boolean() });
export type TreeListing = z.infer<typeof TreeListing>;

/** One file the whitelist admits, with the git blob id the listing gives for it. */
export interface AdmittedFile {
  /** Repository path, for fetching. */
  path: string;
  /** Path relative to the skill root: `SKILL.md` or `scripts/<name>`. */
  relative: string;
  /** The git blob SHA-1 the listing names; the fetched bytes must hash to it. */
  blobSha: string;
  size: number | undefined;
}

export interface Inventory {
  /** The candidate root: "" for the repository root, else a directory path. */
  root: string;
  skillMd: AdmittedFile;
  scripts: AdmittedFile[];
}

export type Judged = { ok: true; inventory: Inventory } | { ok: false; verdict: Verdict };

/**
 * Candidate roots: directories holding a `SKILL.md` whose final segment is byte-equal to the
 * slug, plus the repository root when the repository name is byte-equal to it and a root
 * `SKILL.md` exists. No normalization or case folding participates.
 */
export function candidateRoots(listing: TreeListing, repo: string, slug: string): string[] {
  const roots: string[] = [];
  for (const entry of listing.tree) {
    if (entry.path === "SKILL.md") {
      if (repo === slug) roots.push("");
      continue;
    }
    if (!entry.path.endsWith("/SKILL.md")) continue;
    const dir = entry.path.slice(0, -"/SKILL.md".length);
    if (dir.slice(dir.lastIndexOf("/") + 1) === slug) roots.push(dir);
  }
  return roots;
}

/** Picks the one candidate root and judges its whole subtree against the whitelist. */
export function judgeListing(listing: TreeListing, repo: string, slug: string): Judged {
  if (listing.truncated) {
    return {
      ok: false,
      verdict: refuse("truncated-tree", "the tree listing is truncated: an unread listing is unknown, not an empty tail", "skills"),
    };
  }
  const roots = candidateRoots(listing, repo, slug);
  if (roots.length === 0) {
    return { ok: false, verdict: refuse("no-candidate", `no directory named exactly ${JSON.stringify(slug)} holds a SKILL.md`, "skills") };
  }
  if (roots.length > 1) {
    const named = roots.map((r) => JSON.stringify(r === "" ? "/" : sanitizeRegistryString(r).slice(0, 120))).join(", ");
    return {
      ok: false,
      verdict: refuse("many-candidates", `${roots.length} candidate roots for ${JSON.stringify(slug)}: ${named}`, "skills"),
    };
  }
  return judgeSubtree(listing, roots[0] as string);
}

/** The whitelist on the subtree under `root`: root `SKILL.md` and regular files directly in `scripts/`. */
export function judgeSubtree(listing: TreeListing, root: string): Judged {
  const prefix = root === "" ? "" : `${root}/`;
  const refused: string[] = [];
  const scripts: AdmittedFile[] = [];
  let skillMd: AdmittedFile | null = null;
  for (const entry of listing.tree) {
    if (!entry.path.startsWith(prefix)) continue;
    const relative = entry.path.slice(prefix.length);
    const file = { path: entry.path, relative, blobSha: entry.sha, size: entry.size };
    if (relative === "SKILL.md" && isRegularFile(entry)) skillMd = file;
    else if (relative === "scripts" && entry.type === "tree") continue;
    else if (isAdmissibleScript(relative) && isRegularFile(entry)) scripts.push(file);
    else refused.push(describeEntry(entry, relative));
  }
  if (refused.length > 0) {
    const named = refused.slice(0, NAMED_PATHS).join(", ");
    const more = refused.length > NAMED_PATHS ? ` and ${refused.length - NAMED_PATHS} more` : "";
    return {
      ok: false,
      verdict: refuse(
        "payload-path-refused",
        `${refused.length} paths outside the whitelist (SKILL.md, scripts/<file>): ${named}${more}`,
        "skills",
      ),
    };
  }
  if (!skillMd) return { ok: false, verdict: refuse("no-candidate", "the candidate root has no regular SKILL.md", "skills") };
  if (scripts.length > MAX_SCRIPTS) {
    return {
      ok: false,
      verdict: refuse("too-large", `${scripts.length} scripts listed; at most ${MAX_SCRIPTS} are admitted, none was fetched`, "skills"),
    };
  }
  const oversized = [skillMd, ...scripts].filter((f) => f.size !== undefined && f.size > MAX_FILE_BYTES);
  if (oversized.length > 0) {
    const named = oversized.map((f) => `${JSON.stringify(f.relative)} (${f.size} bytes)`).join(", ");
    return { ok: false, verdict: refuse("too-large", `listed larger than the ${MAX_FILE_BYTES}-byte cap: ${named}`, "skills") };
  }
  return { ok: true, inventory: { root, skillMd, scripts } };
}

function isRegularFile(entry: TreeEntry): boolean {
  return entry.type === "blob" && REGULAR_FILE_MODES.has(entry.mode);
}

function isAdmissibleScript(relative: string): boolean {
  if (!relative.startsWith("scripts/")) return false;
  const name = relative.slice("scripts/".length);
  return name.length <= 255 && SCRIPT_NAME_PATTERN.test(name);
}

/** A refused path as the refusal names it: quoted, sanitized (it is publisher-chosen), with its kind. */
function describeEntry(entry: TreeEntry, relative: string): string {
  const kind =
    entry.type === "commit"
      ? "submodule"
      : entry.mode === "120000"
        ? "symlink"
        : entry.type === "tree"
          ? "directory"
          : isRegularFile(entry)
            ? "file"
            : `mode ${sanitizeRegistryString(entry.mode).slice(0, 8)}`;
  return `${JSON.stringify(sanitizeRegistryString(relative).slice(0, 120))} (${kind})`;
}

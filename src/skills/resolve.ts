import { z } from "zod";
import { allow, type EventLog, refuse, type Verdict } from "../log";
import { type Clock, systemClock } from "../platform";
import { fetchCapped, GITHUB_API_HEADERS, parseJsonBytes, type SkillsFetch } from "./fetch";
import { COMMIT_SHA_PATTERN, type GitSkillRef } from "./id";
import { logStep } from "./steps";

/**
 * Address resolution: a discovery id is not a pinned address. Reading the
 * source repository's default branch head turns it into one, `{id, owner, repo, slug,
 * commitSha, resolvedAt}`. The registry's served `hash` is never the pin.
 */

export const GITHUB_API = "https://api.github.com";
const MAX_API_RESPONSE_BYTES = 1024 * 1024;

export interface PinnedGitAddress {
  id: string;
  owner: string;
  repo: string;
  slug: string;
  /** Full 40-hex commit SHA: the tree it names is immutable, so this is the content address. */
  commitSha: string;
  /** ISO 8601 time of resolution (the time the id itself carried the pin, when it did). */
  resolvedAt: string;
}

export type Resolved = { ok: true; address: PinnedGitAddress } | { ok: false; verdict: Verdict };

export interface ResolveDeps {
  fetch: SkillsFetch;
  log: EventLog;
  clock?: Clock;
}

const Repository = z.object({ default_branch: z.string() });
const Commit = z.object({ sha: z.string() });

/** Resolves a git ref to a pinned address; an `@<sha>` on the id is the pin, with no request. */
export async function resolveSkillAddress(ref: GitSkillRef, deps: ResolveDeps): Promise<Resolved> {
  const clock = deps.clock ?? systemClock;
  const done = (address: PinnedGitAddress, detail: string, url?: string): Resolved => {
    const verdict = allow(`pinned to commit ${address.commitSha}`, "skills");
    logStep(deps.log, "resolve", { id: ref.id, detail, ...(url ? { url } : {}) }, verdict);
    return { ok: true, address };
  };
  const refused = (verdict: Verdict, url?: string): Resolved => {
    logStep(deps.log, "resolve", { id: ref.id, detail: "resolution refused", ...(url ? { url } : {}) }, verdict);
    return { ok: false, verdict };
  };
  const base = { id: ref.id, owner: ref.owner, repo: ref.repo, slug: ref.slug };

  if (ref.pin !== null) {
    if (!COMMIT_SHA_PATTERN.test(ref.pin))
      return refused(refuse("bad-pin", "a pin is a full commit SHA: 40 lowercase hex digits", "skills"));
    return done({ ...base, commitSha: ref.pin, resolvedAt: isoTime(clock) }, "pin taken from the id");
  }

  const repoUrl = `${GITHUB_API}/repos/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.repo)}`;
  const repoBytes = await fetchCapped(deps.fetch, repoUrl, MAX_API_RESPONSE_BYTES, GITHUB_API_HEADERS);
  if (!repoBytes.ok) return refused(repoBytes.verdict, repoUrl);
  const repository = Repository.safeParse(parseJsonBytes(repoBytes.bytes));
  if (!repository.success)
    return refused(refuse("unparsable", `${repoUrl} did not parse as a repository with a default_branch`, "skills"), repoUrl);
  const branch = repository.data.default_branch;
  if (!isUsableBranchName(branch))
    return refused(refuse("bad-pin", "the repository's default branch name is not a usable branch name", "skills"), repoUrl);

  const commitUrl = `${repoUrl}/commits/${encodeURIComponent(branch)}`;
  const commitBytes = await fetchCapped(deps.fetch, commitUrl, MAX_API_RESPONSE_BYTES, GITHUB_API_HEADERS);
  if (!commitBytes.ok) return refused(commitBytes.verdict, commitUrl);
  const commit = Commit.safeParse(parseJsonBytes(commitBytes.bytes));
  if (!commit.success) return refused(refuse("unparsable", `${commitUrl} did not parse as a commit with a sha`, "skills"), commitUrl);
  if (!COMMIT_SHA_PATTERN.test(commit.data.sha)) {
    return refused(refuse("bad-pin", "the branch head's sha is not a full commit SHA (40 lowercase hex digits)", "skills"), commitUrl);
  }
  return done(
    { ...base, commitSha: commit.data.sha, resolvedAt: isoTime(clock) },
    `head of default branch ${JSON.stringify(branch)}`,
    commitUrl,
  );
}

/**
 * A branch name we are willing to put in a URL: git's refname rules (no control characters,
 * space, `~^:?*[\`, `..`, `@{`, no leading or trailing `/` or `.`, no `.lock` suffix), at most
 * 255 bytes. Anything else is a repository we do not understand, so it is refused (`bad-pin`).
 */
export function isUsableBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || name === "@") return false;
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name) || /[^\u0000-\u007f]/.test(name)) return false;
  if (name.includes("..") || name.includes("@{") || name.includes("//")) return false;
  if (name.startsWith("/") || name.endsWith("/") || name.endsWith(".") || name.endsWith(".lock")) return false;
  return name.split("/").every((part) => part.length > 0 && !part.startsWith("."));
}

function isoTime(clock: Clock): string {
  return new Date(clock()).toISOString();
}

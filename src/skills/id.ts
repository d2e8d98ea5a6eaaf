import { refuse, type Verdict } from "../log";

/**
 * The shapes of what names a skill. A discovery id is `owner/repo/slug`; anything
 * else is refused rather than passed through sanitized, because an odd id is how a name gets
 * to look like one we trust.
 */

/** GitHub owner / repository name / skill slug, as skills.sh spells an id. */
export const SKILL_ID_PATTERN = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}\/[A-Za-z0-9._:-]{1,100}$/;
/** A full commit SHA as the GitHub API spells it: 40 lowercase hex digits. */
export const COMMIT_SHA_PATTERN = /^[0-9a-f]{40}$/;
/** The one index path the well-known route reads (Agent Skills Discovery, v0.2.0). */
export const WELL_KNOWN_INDEX_SUFFIX = "/.well-known/agent-skills/index.json";

export interface SkillId {
  /** `owner/repo/slug`, exactly as given. */
  id: string;
  owner: string;
  repo: string;
  slug: string;
}

/** A discovery id, with the commit it is pinned to when the id carried `@<sha>`. */
export interface GitSkillRef extends SkillId {
  kind: "git";
  pin: string | null;
}

/** An entry of a publisher's `.well-known/agent-skills/index.json`, named by its `name`. */
export interface WellKnownSkillRef {
  kind: "well-known";
  /** The id as given: `https://host/…/.well-known/agent-skills/index.json#name`. */
  id: string;
  indexUrl: string;
  name: string;
}

export type SkillRef = GitSkillRef | WellKnownSkillRef;

export type Parsed<T> = { ok: true; value: T } | { ok: false; verdict: Verdict };

/** `owner/repo/slug` with no all-dots segment (`.`/`..` would walk paths), or null. */
export function parseSkillId(id: string): SkillId | null {
  if (!SKILL_ID_PATTERN.test(id)) return null;
  const [owner, repo, slug] = id.split("/") as [string, string, string];
  if ([repo, slug].some((segment) => /^\.+$/.test(segment))) return null;
  return { id, owner, repo, slug };
}

/**
 * What `acquire` accepts: `owner/repo/slug`, `owner/repo/slug@<40 lowercase hex>` (taken as
 * the pin without asking anyone), or the https URL of a well-known index with `#name`.
 */
export function parseSkillRef(input: string): Parsed<SkillRef> {
  if (input.startsWith("https://") || input.startsWith("http://")) return parseWellKnownRef(input);
  const at = input.indexOf("@");
  const bare = at === -1 ? input : input.slice(0, at);
  const pin = at === -1 ? null : input.slice(at + 1);
  const id = parseSkillId(bare);
  if (!id) {
    return { ok: false, verdict: refuse("bad-request", `${JSON.stringify(bare.slice(0, 120))} is not an owner/repo/slug id`, "skills") };
  }
  if (pin !== null && !COMMIT_SHA_PATTERN.test(pin)) {
    return { ok: false, verdict: refuse("bad-pin", `the pin after "@" must be a full commit SHA (40 lowercase hex digits)`, "skills") };
  }
  return { ok: true, value: { kind: "git", ...id, pin } };
}

const WELL_KNOWN_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function parseWellKnownRef(input: string): Parsed<SkillRef> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, verdict: refuse("bad-request", "the well-known address is not a URL", "skills") };
  }
  if (url.protocol !== "https:") return { ok: false, verdict: refuse("not-https", `${url.protocol} is not https`, "skills") };
  const name = url.hash.slice(1);
  if (!url.pathname.endsWith(WELL_KNOWN_INDEX_SUFFIX) || url.search !== "" || url.username !== "" || url.password !== "") {
    return { ok: false, verdict: refuse("bad-request", `a well-known address is https://host${WELL_KNOWN_INDEX_SUFFIX}#name`, "skills") };
  }
  if (name.length > 64 || !WELL_KNOWN_NAME.test(name)) {
    return { ok: false, verdict: refuse("bad-request", "the skill name after # must be 1-64 of a-z, 0-9 and single hyphens", "skills") };
  }
  url.hash = "";
  return { ok: true, value: { kind: "well-known", id: `${url.href}#${name}`, indexUrl: url.href, name } };
}

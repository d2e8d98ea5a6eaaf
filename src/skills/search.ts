import { z } from "zod";
import { allow, type EventLog, refuse, type Verdict } from "../log";
import { fetchCapped, parseJsonBytes, type SkillsFetch } from "./fetch";
import { parseSkillId } from "./id";
import { sanitizeRegistryString } from "./sanitize";
import { logStep } from "./steps";

/**
 * Discovery (docs/decisions/0003-skills-from-a-public-registry.md): `GET <registry>/api/search`, metadata only. It returns ids,
 * sanitized names, sources and install counts; it cannot fetch, read or load a skill.
 */

export const DEFAULT_REGISTRY = "https://skills.sh";
export const DEFAULT_SEARCH_LIMIT = 10;
/** The most hits one search returns; a caller narrows the query instead. */
export const MAX_SEARCH_LIMIT = 50;
export const MIN_QUERY_LENGTH = 2;
export const MAX_QUERY_LENGTH = 200;
/** A search answer larger than this is refused rather than buffered. */
export const MAX_SEARCH_RESPONSE_BYTES = 1024 * 1024;

export interface SkillHit {
  /** `owner/repo/slug`, matched against the id shape before anything else looked at it. */
  id: string;
  owner: string;
  repo: string;
  slug: string;
  /** The registry's display name, sanitized: shown as text, never as authority. */
  name: string;
  /** `owner/repo`, equal to the id's first two segments. */
  source: string;
  /**
   * The registry's install count, or null when it sent none usable. Forgeable by anyone with an
   * HTTP client (the registry fills it from unauthenticated telemetry): shown labelled as unverified, never used to
   * sort, rank or gate.
   */
  installsUnverified: number | null;
}

export type DropReason = "not-an-object" | "id-shape" | "id-not-under-source" | "duplicate" | "over-limit";

export interface SearchDropped {
  count: number;
  byReason: Partial<Record<DropReason, number>>;
}

export type SearchOutcome =
  | { ok: true; registry: string; query: string; hits: SkillHit[]; dropped: SearchDropped; verdict: Verdict }
  | { ok: false; verdict: Verdict };

export interface SearchDeps {
  fetch: SkillsFetch;
  log: EventLog;
}

export interface SearchRequest {
  query: string;
  limit?: number;
  /** The registry's origin; `https://skills.sh` unless configured. */
  registry?: string;
}

const SearchResponse = z.object({ skills: z.array(z.unknown()) });
const RegistryEntry = z.object({ id: z.string(), name: z.string(), source: z.string(), installs: z.unknown().optional() });

/** Searches the registry. Refuses a bad query or limit before any request (`bad-query`). */
export async function searchSkills(request: SearchRequest, deps: SearchDeps): Promise<SearchOutcome> {
  const query = request.query.trim();
  const limit = request.limit ?? DEFAULT_SEARCH_LIMIT;
  const logId = `search:${sanitizeRegistryString(query).slice(0, 80)}`;
  const refused = (verdict: Verdict, url?: string): SearchOutcome => {
    logStep(deps.log, "search", { id: logId, detail: "search refused", ...(url ? { url } : {}) }, verdict);
    return { ok: false, verdict };
  };

  const badQuery = checkQuery(query, limit);
  if (badQuery) return refused(badQuery);
  const origin = registryOrigin(request.registry ?? DEFAULT_REGISTRY);
  if (!origin.ok) return refused(origin.verdict);

  const url = `${origin.value}/api/search?${new URLSearchParams({ q: query, limit: String(limit) })}`;
  const fetched = await fetchCapped(deps.fetch, url, MAX_SEARCH_RESPONSE_BYTES, { accept: "application/json" });
  if (!fetched.ok) return refused(fetched.verdict, url);
  // A 200 carrying an HTML page is a missing index, not an empty one: only the parse decides.
  const parsed = SearchResponse.safeParse(parseJsonBytes(fetched.bytes));
  if (!parsed.success) {
    const what = fetched.contentType ? ` (content-type ${sanitizeRegistryString(fetched.contentType).slice(0, 60)})` : "";
    return refused(refuse("unparsable-index", `${url} did not parse as {skills: [...]}${what}`, "skills"), url);
  }

  const { hits, dropped } = admitEntries(parsed.data.skills, limit);
  const verdict = allow(`${hits.length} hits; ${dropped.count} registry entries dropped`, "skills");
  logStep(deps.log, "search", { id: logId, detail: `${hits.length} hits, ${dropped.count} dropped`, url }, verdict);
  return { ok: true, registry: origin.value, query, hits, dropped, verdict };
}

function checkQuery(query: string, limit: number): Verdict | null {
  const length = Array.from(query).length;
  if (length < MIN_QUERY_LENGTH) return refuse("bad-query", `a query needs at least ${MIN_QUERY_LENGTH} characters`, "skills");
  if (length > MAX_QUERY_LENGTH) return refuse("bad-query", `a query has at most ${MAX_QUERY_LENGTH} characters`, "skills");
  if (/[\p{Cc}\p{Cf}]/u.test(query)) return refuse("bad-query", "a query may not contain control or invisible characters", "skills");
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    return refuse("bad-query", `the limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`, "skills");
  }
  return null;
}

/** The registry as an https origin (no path, no credentials), or a refusal. */
export function registryOrigin(registry: string): { ok: true; value: string } | { ok: false; verdict: Verdict } {
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    return { ok: false, verdict: refuse("bad-request", "the registry is not a URL", "skills") };
  }
  if (url.protocol !== "https:")
    return { ok: false, verdict: refuse("not-https", `the registry must be https, not ${url.protocol}`, "skills") };
  if (url.username || url.password || (url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
    return { ok: false, verdict: refuse("bad-request", "the registry is an origin: https://host[:port], nothing else", "skills") };
  }
  return { ok: true, value: url.origin };
}

/**
 * Keeps entries whose id has the `owner/repo/slug` shape and sits under their `source`
 * (`source` equal to `owner/repo`), drops and counts the rest. Hits are ordered by id, not by
 * the registry's order, which follows its forgeable install counts.
 */
function admitEntries(entries: readonly unknown[], limit: number): { hits: SkillHit[]; dropped: SearchDropped } {
  const byReason: Partial<Record<DropReason, number>> = {};
  const drop = (reason: DropReason) => {
    byReason[reason] = (byReason[reason] ?? 0) + 1;
  };
  const seen = new Set<string>();
  const hits: SkillHit[] = [];
  for (const raw of entries) {
    const entry = RegistryEntry.safeParse(raw);
    if (!entry.success) {
      drop("not-an-object");
      continue;
    }
    const id = parseSkillId(entry.data.id);
    if (!id) {
      drop("id-shape");
      continue;
    }
    if (entry.data.source !== `${id.owner}/${id.repo}`) {
      drop("id-not-under-source");
      continue;
    }
    if (seen.has(id.id)) {
      drop("duplicate");
      continue;
    }
    seen.add(id.id);
    const installs = entry.data.installs;
    hits.push({
      id: id.id,
      owner: id.owner,
      repo: id.repo,
      slug: id.slug,
      name: sanitizeRegistryString(entry.data.name),
      source: entry.data.source,
      installsUnverified: typeof installs === "number" && Number.isSafeInteger(installs) && installs >= 0 ? installs : null,
    });
  }
  hits.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const _ of hits.splice(limit)) drop("over-limit");
  const count = Object.values(byReason).reduce((sum, n) => sum + n, 0);
  return { hits, dropped: { count, byReason } };
}

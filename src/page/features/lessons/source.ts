import { sha256Hex } from "../../../bytes";
import type { Cas } from "../../../cas";
import {
  type AllowlistEntry,
  checkAllowlisted,
  type FetchLike,
  fetchGuarded,
  parseAllowlistEntry,
  parsePinnedUrl,
} from "../../../resolver";

/** A lesson's bytes, where they came from, and its pin (the sha256 of exactly those bytes). */
export interface LessonSource {
  text: string;
  pin: string;
  source: "url" | "link" | "bundled";
  /** The URL, the shipped lesson's name, or "draft link". */
  ref: string;
}

export type LessonSourceResult = { ok: true; lesson: LessonSource } | { ok: false; code: string; by: string; reason: string };

/** A lesson is a page of YAML: a published one larger than this is refused while it streams in. */
export const MAX_LESSON_BYTES = 256 * 1024;

export interface PinnedLessonOptions {
  cas: Cas;
  fetch: FetchLike;
  /** The org allowlist in force (the Resolver panel's): a lesson URL must lie under one of its prefixes. */
  orgAllowlist: readonly string[];
}

const decoder = new TextDecoder("utf-8", { fatal: false });

/**
 * A published lesson (`https://…#sha256=…`), the way the resolver obtains a harness file: the
 * pin is required, the URL must lie under the org allowlist, the cache answers by pin
 * (re-hashed on read), else a guarded fetch (https, no redirects, 200, size-capped) whose
 * bytes must hash to the pin (`lesson-pin-mismatch` otherwise), then the cache keeps them.
 */
export async function obtainPinnedLesson(ref: string, options: PinnedLessonOptions): Promise<LessonSourceResult> {
  const pinned = parsePinnedUrl(ref);
  if (!pinned.ok) return { ok: false, code: pinned.verdict.code, by: pinned.verdict.by, reason: pinned.verdict.reason };
  const entries: AllowlistEntry[] = [];
  for (const raw of options.orgAllowlist) {
    const parsed = parseAllowlistEntry(raw);
    if (parsed.ok) entries.push(parsed.entry);
  }
  const allowed = checkAllowlisted(pinned.url, entries, []);
  if (!allowed.allowed) return { ok: false, code: allowed.code, by: allowed.by, reason: allowed.reason };
  const cached = await options.cas.get(pinned.pin);
  if (cached.status === "hit") return { ok: true, lesson: { text: decoder.decode(cached.bytes), pin: pinned.pin, source: "url", ref } };
  const fetched = await fetchGuarded(pinned.url, options.fetch, { maxBytes: MAX_LESSON_BYTES, timeoutMs: 30_000 });
  if (!fetched.ok) return { ok: false, code: fetched.verdict.code, by: fetched.verdict.by, reason: fetched.verdict.reason };
  const sha256 = await sha256Hex(fetched.bytes);
  if (sha256 !== pinned.pin)
    return {
      ok: false,
      code: "lesson-pin-mismatch",
      by: "resolver",
      reason: `${pinned.url} hashes to ${sha256}, but the link pins ${pinned.pin}: the lesson changed since the link was made`,
    };
  await options.cas.put(fetched.bytes, { url: pinned.url });
  return { ok: true, lesson: { text: decoder.decode(fetched.bytes), pin: sha256, source: "url", ref } };
}

/** A lesson whose bytes the page already has (shipped, or carried in a link): its pin is their hash. */
export async function lessonFromText(text: string, source: "link" | "bundled", ref: string): Promise<LessonSource> {
  return { text, pin: await sha256Hex(new TextEncoder().encode(text)), source, ref };
}

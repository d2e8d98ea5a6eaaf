import { z } from "zod";
import { sha256Hex, utf8 } from "../bytes";
import { parseAllowlistEntry } from "./allowlist";

/**
 * The org-level allowlist as an operator edits it (the page's Resolver panel, the CLI's
 * `--allow-prefix`): the URL prefixes harness resources may come from. Stricter than an
 * entry read from a config.yaml: besides every rule of `parseAllowlistEntry` (https only, no
 * userinfo, no IP literal, no backslash, no `%25`, no `..;` tricks, ends in `/`), an entry
 * must be written in its normal form — lower-case host, no `.`/`..` segments, no escaped
 * unreserved characters, no empty segment — so what the operator reads is exactly the tree
 * that is allowed (a spelling that normalises elsewhere is a path-confusion risk).
 */
export const MAX_ORG_ALLOWLIST_ENTRIES = 64;
const MAX_ENTRY_LENGTH = 500;

/** Why one entry is refused, or null when it is a valid, normal-form prefix. */
export function orgAllowlistEntryProblem(raw: string): string | null {
  if (raw.length > MAX_ENTRY_LENGTH) return `${raw.slice(0, 60)}… is longer than ${MAX_ENTRY_LENGTH} characters`;
  const parsed = parseAllowlistEntry(raw);
  if (!parsed.ok) return parsed.reason;
  // Decoded, an escaped slash or backslash splits a segment in two: the tree read is not the tree seen.
  if (/%(2f|5c)/i.test(raw)) return `${raw} has an escaped slash or backslash`;
  const { host, port, path } = parsed.entry.key;
  const normal = `https://${host}${port === "" ? "" : `:${port}`}${path}`;
  if (raw !== normal) return `${raw} is not in normal form; write it as ${normal}`;
  if (path.includes("//")) return `${raw} has an empty path segment`;
  return null;
}

/** One prefix, checked by `orgAllowlistEntryProblem` (zod, so every trust boundary reads it the same way). */
export const OrgAllowlistEntry = z.string().superRefine((raw, ctx) => {
  const problem = orgAllowlistEntryProblem(raw);
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
});

/** A whole org allowlist: valid entries, no repeats, at most 64. */
export const OrgAllowlistEntries = z
  .array(OrgAllowlistEntry)
  .max(MAX_ORG_ALLOWLIST_ENTRIES, `at most ${MAX_ORG_ALLOWLIST_ENTRIES} entries`)
  .superRefine((entries, ctx) => {
    const seen = new Map<string, number>();
    for (const [i, entry] of entries.entries()) {
      const first = seen.get(entry);
      if (first !== undefined) ctx.addIssue({ code: "custom", path: [i], message: `${entry} repeats entry ${first + 1}` });
      else seen.set(entry, i);
    }
  });

export type OrgAllowlistParse = { ok: true; entries: string[] } | { ok: false; errors: string[] };

/** Checks a list of entries; errors name the entry by its 1-based position. */
export function checkOrgAllowlist(entries: readonly string[]): OrgAllowlistParse {
  return checkNamed(entries, (at, message) => `entry ${at + 1}: ${message}`);
}

/** Checks `entries`; `name(index, message)` says where an entry's error is. */
function checkNamed(entries: readonly string[], name: (at: number, message: string) => string): OrgAllowlistParse {
  const result = OrgAllowlistEntries.safeParse(entries);
  if (result.success) return { ok: true, entries: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((issue) => {
      const at = issue.path[0];
      return typeof at === "number" ? name(at, issue.message) : issue.message;
    }),
  };
}

/**
 * The editor's text: one prefix per line; blank lines and lines starting with `#` are
 * ignored, surrounding spaces trimmed. Errors name the line, as the policy editor's do.
 */
export function parseOrgAllowlistText(text: string): OrgAllowlistParse {
  const lines = text.split(/\r?\n/);
  const entries: string[] = [];
  const lineOf: number[] = [];
  for (const [i, line] of lines.entries()) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    entries.push(trimmed);
    lineOf.push(i + 1);
  }
  return checkNamed(entries, (at, message) => {
    // A repeat names the earlier entry by position; say lines instead.
    const lines = message.replace(/repeats entry (\d+)$/, (_, n: string) => `repeats line ${lineOf[Number(n) - 1]}`);
    return `line ${lineOf[at]}: ${lines}`;
  });
}

/** The editor's text for a list: one prefix per line. */
export const orgAllowlistText = (entries: readonly string[]): string => (entries.length === 0 ? "" : `${entries.join("\n")}\n`);

/**
 * The canonical form hashed for a change event: the entries as a JSON array, sorted by code
 * unit, without repeats or whitespace. Order does not change what is allowed, so a reorder
 * keeps the hash.
 */
export function orgAllowlistCanonical(entries: readonly string[]): string {
  return JSON.stringify([...new Set(entries)].sort());
}

/** sha256 (lower-case hex) of the UTF-8 canonical form. */
export function orgAllowlistHash(entries: readonly string[]): Promise<string> {
  return sha256Hex(utf8(orgAllowlistCanonical(entries)));
}

import { sha256Hex, utf8 } from "../bytes";
import type { Policy } from "./schema";

/**
 * The canonical JSON form of a value (README "The policy hash"): object keys sorted by UTF-16
 * code unit order at every depth, arrays kept in order, no whitespace, `undefined` fields
 * left out, strings and numbers as `JSON.stringify` writes them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** sha256 (lowercase hex) of the UTF-8 canonical JSON of the parsed, normalised policy. */
export function policyHash(policy: Policy): Promise<string> {
  return sha256Hex(utf8(canonicalJson(policy)));
}

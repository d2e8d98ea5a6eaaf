import { refuse, type Verdict } from "../log";

/** The three reference forms: absolute path, path relative to the base, https URL (docs/decisions/0001-harness-resources-by-url-and-path.md). */
export type RefForm = "absolute" | "relative" | "url";

/** Anything with a scheme (`https:`, `http:`, `file:`, `ftp:`) is a URL form, allowed or not. */
const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

export function refForm(ref: string): RefForm {
  if (SCHEME.test(ref)) return "url";
  return ref.startsWith("/") ? "absolute" : "relative";
}

/** A URL reference split at its pin: `url` is what is fetched, `pin` the lowercase hex. */
export type PinnedUrl = { ok: true; url: string; pin: string } | { ok: false; url: string; verdict: Verdict };

const PIN = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * The pin is the fragment after the LAST `#` and must be exactly `sha256=<64 hex>`
 * (upper-case hex accepted, lower-cased). Anything else is `hash-missing`:
 * every URL must carry its sha256 pin.
 */
export function parsePinnedUrl(ref: string): PinnedUrl {
  const at = ref.lastIndexOf("#");
  if (at < 0)
    return {
      ok: false,
      url: ref,
      verdict: refuse("hash-missing", `${ref} has no #sha256=<64 hex> pin; every URL must carry one`, "resolver"),
    };
  const url = ref.slice(0, at);
  const fragment = ref.slice(at + 1);
  const match = PIN.exec(fragment);
  if (!match) {
    return {
      ok: false,
      url,
      verdict: refuse(
        "hash-missing",
        `the fragment "#${fragment.slice(0, 80)}" is not sha256=<64 hex>; every URL must carry a pin`,
        "resolver",
      ),
    };
  }
  return { ok: true, url, pin: match[1]!.toLowerCase() };
}

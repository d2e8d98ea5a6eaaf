import { fromBase64, inflateCapped, readCapped, toBase64 } from "../bytes";

/**
 * A draft carried whole in a link is capped twice: the fragment (links past ~16 KB are cut by
 * chat tools and some browsers' address bars) and the inflated text (so a small fragment can
 * never inflate into a large allocation). A larger draft is published and loaded pinned instead.
 */
export const LESSON_LINK_MAX_CHARS = 16 * 1024;
export const LESSON_DRAFT_MAX_BYTES = 64 * 1024;

export type DraftDecode = { ok: true; text: string } | { ok: false; code: "lesson-invalid"; reason: string };

const toBase64Url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

const streamOf = (bytes: Uint8Array) => new Blob([bytes as BlobPart]).stream();

/** The lesson text deflated (raw) and base64url-encoded; a RangeError when either cap is passed. */
export async function encodeLessonDraft(yamlText: string): Promise<string> {
  const bytes = new TextEncoder().encode(yamlText);
  if (bytes.byteLength > LESSON_DRAFT_MAX_BYTES)
    throw new RangeError(`${bytes.byteLength} bytes; a draft link carries at most ${LESSON_DRAFT_MAX_BYTES}`);
  const deflated = await readCapped(streamOf(bytes).pipeThrough(new CompressionStream("deflate-raw")), Number.MAX_SAFE_INTEGER);
  const fragment = toBase64Url(deflated.ok ? deflated.bytes : new Uint8Array());
  if (fragment.length > LESSON_LINK_MAX_CHARS)
    throw new RangeError(`${fragment.length} characters compressed; a draft link carries at most ${LESSON_LINK_MAX_CHARS}`);
  return fragment;
}

type LinkText = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Text a link carries deflated (raw) and base64url-encoded, read within two caps: the link's
 * characters, and the inflated bytes, counted while inflating (inflateCapped) so the cap holds
 * before the memory is spent, not after. `what` names it in the reasons ("the draft").
 */
async function readLinkText(fragment: string, what: string, maxChars: number, maxBytes: number, tooLarge: string): Promise<LinkText> {
  const bad = (reason: string): LinkText => ({ ok: false, reason });
  if (fragment.length === 0) return bad(`the ${what} link carries nothing`);
  if (fragment.length > maxChars) return bad(`the ${what} is ${fragment.length} characters; a ${what} link carries at most ${maxChars}`);
  if (!/^[A-Za-z0-9_-]+$/.test(fragment)) return bad(`the ${what} is not base64url (A-Z, a-z, 0-9, - and _ only)`);
  let packed: Uint8Array;
  try {
    packed = fromBase64(fragment.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return bad(`the ${what} is not base64url`);
  }
  const inflated = await inflateCapped(packed, "deflate-raw", maxBytes);
  if (!inflated.ok)
    return bad(
      inflated.problem === "too-large"
        ? `${tooLarge}: the ${what} inflates past ${maxBytes} bytes`
        : `the ${what} does not inflate (deflate-raw): the link was cut or changed`,
    );
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(inflated.bytes) };
  } catch {
    return bad(`the ${what} is not UTF-8 text`);
  }
}

/** The lesson text a draft link carries, or `lesson-invalid` with the reason it cannot be read. */
export async function decodeLessonDraft(fragment: string): Promise<DraftDecode> {
  if (fragment.length === 0) return { ok: false, code: "lesson-invalid", reason: "the draft link carries no lesson" };
  const read = await readLinkText(fragment, "draft", LESSON_LINK_MAX_CHARS, LESSON_DRAFT_MAX_BYTES, "draft-too-large");
  return read.ok ? read : { ok: false, code: "lesson-invalid", reason: read.reason };
}

/**
 * A share link's inline `?policy=` is capped like a draft: the share button inlines a policy
 * only up to 1,500 characters and publishes a larger one by pinned reference, so a reader
 * needs no more than these (an 85 KiB link once inflated to 64 MiB).
 */
export const SHARE_POLICY_LINK_MAX_CHARS = 16 * 1024;
export const SHARE_POLICY_MAX_BYTES = 64 * 1024;

/** The policy text a share link's `?policy=` carries, or the reason (`policy-too-large: …` past the cap). */
export function readLinkPolicy(packed: string): Promise<LinkText> {
  return readLinkText(packed, "policy", SHARE_POLICY_LINK_MAX_CHARS, SHARE_POLICY_MAX_BYTES, "policy-too-large");
}

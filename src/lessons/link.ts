import { fromBase64, toBase64 } from "../bytes";

/**
 * A draft carried whole in a link is capped twice: the fragment (links past ~16 KB are cut by
 * chat tools and some browsers' address bars) and the inflated text (so a small fragment can
 * never inflate into a large allocation). A larger draft is published and loaded pinned instead.
 */
export const LESSON_LINK_MAX_CHARS = 16 * 1024;
export const LESSON_DRAFT_MAX_BYTES = 64 * 1024;

export type DraftDecode = { ok: true; text: string } | { ok: false; code: "lesson-invalid"; reason: string };

const toBase64Url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function readAll(stream: ReadableStream<Uint8Array>, cap: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const streamOf = (bytes: Uint8Array) => new Blob([bytes as BlobPart]).stream();

/** The lesson text deflated (raw) and base64url-encoded; a RangeError when either cap is passed. */
export async function encodeLessonDraft(yamlText: string): Promise<string> {
  const bytes = new TextEncoder().encode(yamlText);
  if (bytes.byteLength > LESSON_DRAFT_MAX_BYTES)
    throw new RangeError(`${bytes.byteLength} bytes; a draft link carries at most ${LESSON_DRAFT_MAX_BYTES}`);
  const deflated = await readAll(streamOf(bytes).pipeThrough(new CompressionStream("deflate-raw")), Number.MAX_SAFE_INTEGER);
  const fragment = toBase64Url(deflated ?? new Uint8Array());
  if (fragment.length > LESSON_LINK_MAX_CHARS)
    throw new RangeError(`${fragment.length} characters compressed; a draft link carries at most ${LESSON_LINK_MAX_CHARS}`);
  return fragment;
}

/** The lesson text a draft link carries, or `lesson-invalid` with the reason it cannot be read. */
export async function decodeLessonDraft(fragment: string): Promise<DraftDecode> {
  const bad = (reason: string): DraftDecode => ({ ok: false, code: "lesson-invalid", reason });
  if (fragment.length === 0) return bad("the draft link carries no lesson");
  if (fragment.length > LESSON_LINK_MAX_CHARS)
    return bad(`the draft is ${fragment.length} characters; a draft link carries at most ${LESSON_LINK_MAX_CHARS}`);
  if (!/^[A-Za-z0-9_-]+$/.test(fragment)) return bad("the draft is not base64url (A-Z, a-z, 0-9, - and _ only)");
  let packed: Uint8Array;
  try {
    packed = fromBase64(fragment.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return bad("the draft is not base64url");
  }
  let inflated: Uint8Array | null;
  try {
    inflated = await readAll(streamOf(packed).pipeThrough(new DecompressionStream("deflate-raw")), LESSON_DRAFT_MAX_BYTES);
  } catch {
    return bad("the draft does not inflate (deflate-raw): the link was cut or changed");
  }
  if (inflated === null) return bad(`the draft inflates past ${LESSON_DRAFT_MAX_BYTES} bytes`);
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(inflated) };
  } catch {
    return bad("the draft is not UTF-8 text");
  }
}

import { sha256Hex } from "../bytes";

/** A lesson's pin: the lowercase hex sha256 of its exact bytes (as a harness resource is pinned). */
export async function lessonPin(bytes: Uint8Array | string): Promise<string> {
  return sha256Hex(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes);
}

export type PinnedRef = { ok: true; ref: string; pin: string | null } | { ok: false; reason: string };

/** Splits `FILE#sha256=HEX` (or a URL with that fragment) into the reference and its pin. */
export function splitLessonRef(text: string): PinnedRef {
  const hash = text.indexOf("#");
  if (hash < 0) return { ok: true, ref: text, pin: null };
  const ref = text.slice(0, hash);
  const fragment = text.slice(hash + 1);
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(fragment);
  if (!m?.[1]) return { ok: false, reason: `"#${fragment}" is not a pin: write #sha256= and 64 hex digits` };
  return { ok: true, ref, pin: m[1].toLowerCase() };
}

export type PinCheck = { ok: true; pin: string } | { ok: false; code: "lesson-pin-mismatch"; pin: string; reason: string };

/** Whether the bytes are the ones the pin names. */
export async function checkLessonPin(bytes: Uint8Array | string, expected: string): Promise<PinCheck> {
  const pin = await lessonPin(bytes);
  if (pin === expected.toLowerCase()) return { ok: true, pin };
  return {
    ok: false,
    code: "lesson-pin-mismatch",
    pin,
    reason: `the lesson's bytes hash to sha256=${pin}, the reference pins sha256=${expected.toLowerCase()}`,
  };
}

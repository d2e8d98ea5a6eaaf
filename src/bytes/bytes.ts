/** One array holding all the parts, in order. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  return joinBytes(parts);
}

/** One array holding a list of parts (a stream's chunks: as many as it gave, never spread as arguments). */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Byte-wise equality (not constant-time; use only for non-secret data). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Equality whose time does not depend on where the bytes differ: for secrets (MACs, binders, Finished). */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const encoder = new TextEncoder();
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** Decodes UTF-8, or returns null when the bytes are not valid UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Decodes UTF-8, replacing invalid sequences with U+FFFD. */
export const decodeUtf8 = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

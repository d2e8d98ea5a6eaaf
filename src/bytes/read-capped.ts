import { joinBytes } from "./bytes";
/** A body read whole, or why not: more than the cap (the stream is cancelled), or the stream failed. */
export type CappedRead =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; problem: "too-large" }
  | { ok: false; problem: "failed"; error: unknown };

/**
 * Reads a body (a fetch Response's, say) into one buffer, but never more than `cap` bytes:
 * past the cap it stops reading and cancels the stream, so a huge or endless body costs at
 * most `cap` bytes of memory. `onChunk` hears the running total after each chunk (progress).
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  cap: number,
  onChunk?: (total: number) => void,
): Promise<CappedRead> {
  if (!body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > cap) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, problem: "too-large" };
      }
      parts.push(value);
      onChunk?.(total);
    }
  } catch (error) {
    return { ok: false, problem: "failed", error };
  }
  return { ok: true, bytes: joinBytes(parts) };
}

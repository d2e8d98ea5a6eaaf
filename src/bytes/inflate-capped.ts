import { readCapped } from "./read-capped";
/** Inflated bytes, or why not: past the cap (stopped there), or not valid compressed data. */
export type CappedInflate =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; problem: "too-large" /** compressed bytes fed in before it stopped */; consumed: number }
  | { ok: false; problem: "corrupt"; error: unknown };

/** Compressed bytes fed per step: deflate expands at most ~1,032×, so one step adds at most ~260 KiB past the cap. */
const INPUT_STEP = 256;

/**
 * Inflates `packed` (material from a link: 85 KiB of deflate inflates to 64 MiB) but never
 * much past `cap` bytes: the input is fed in small steps while the output is counted, and both
 * sides stop once the output passes the cap. Piping the whole input at once would let the
 * decompressor produce everything before the first output chunk is read.
 */
export async function inflateCapped(packed: Uint8Array, format: "deflate" | "deflate-raw" | "gzip", cap: number): Promise<CappedInflate> {
  const inflater = new DecompressionStream(format);
  const writer = inflater.writable.getWriter();
  let consumed = 0;
  let stopped = false;
  const feeding = (async () => {
    for (let at = 0; at < packed.byteLength && !stopped; at += INPUT_STEP) {
      const step = packed.slice(at, at + INPUT_STEP);
      await writer.write(step);
      consumed += step.byteLength;
    }
    if (!stopped) await writer.close();
  })();
  // A rejection here is reported by the reader's side (the stream errors) or is the stop itself.
  feeding.catch(() => undefined);
  // The output side is any capped read: past the cap it cancels the inflater's output.
  const read = await readCapped(inflater.readable, cap);
  if (read.ok) {
    try {
      await feeding;
    } catch (error) {
      return { ok: false, problem: "corrupt", error };
    }
    return read;
  }
  stopped = true;
  await writer.abort().catch(() => undefined);
  return read.problem === "too-large"
    ? { ok: false, problem: "too-large", consumed }
    : { ok: false, problem: "corrupt", error: read.error };
}

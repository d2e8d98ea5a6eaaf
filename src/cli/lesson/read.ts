import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { messageOf } from "../../platform";

/**
 * The most bytes `lesson check` and `lesson test` read of a lesson file: the page's own cap
 * for a published lesson (src/page/features/lessons/source.ts, 256 KiB); the text is then
 * capped again in characters when it is parsed (LESSON_MAX_CHARS).
 */
export const LESSON_FILE_MAX_BYTES = 256 * 1024;

export type LessonBytes = { ok: true; bytes: Buffer } | { ok: false; reason: string };

/**
 * A lesson file's bytes, read only when it is a regular file within the cap: a FIFO or a
 * device named like a lesson (`x.yaml` → /dev/zero) would otherwise hang or fill the reader.
 */
export async function readLessonBytes(path: string): Promise<LessonBytes> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // Non-blocking, so opening a FIFO returns at once (and is then refused as not a file).
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { ok: false, reason: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: "lesson-invalid: not a regular file (a lesson is read only from one)" };
    if (stats.size > LESSON_FILE_MAX_BYTES)
      return { ok: false, reason: `lesson-too-large: the file is ${stats.size} bytes; a lesson file has at most ${LESSON_FILE_MAX_BYTES}` };
    const buffer = Buffer.alloc(LESSON_FILE_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > LESSON_FILE_MAX_BYTES)
        return { ok: false, reason: `lesson-too-large: the file grew past ${LESSON_FILE_MAX_BYTES} bytes while it was read` };
    }
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { ok: false, reason: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})` };
  } finally {
    await handle.close();
  }
}

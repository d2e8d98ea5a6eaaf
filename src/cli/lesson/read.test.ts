import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LESSON_FILE_MAX_BYTES, readLessonBytes } from "./read";

describe("a lesson file is read only when it is a regular file within the cap", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tab-lesson-read-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("reads a regular file's bytes", async () => {
    await writeFile(join(dir, "ok.yaml"), "lesson: 1\n");
    expect(await readLessonBytes(join(dir, "ok.yaml"))).toEqual({ ok: true, bytes: Buffer.from("lesson: 1\n") });
  });

  it("a file past the cap is lesson-too-large, not read", async () => {
    await writeFile(join(dir, "big.yaml"), Buffer.alloc(LESSON_FILE_MAX_BYTES + 1, 0x61));
    expect(await readLessonBytes(join(dir, "big.yaml"))).toEqual({
      ok: false,
      reason: `lesson-too-large: the file is ${LESSON_FILE_MAX_BYTES + 1} bytes; a lesson file has at most ${LESSON_FILE_MAX_BYTES}`,
    });
  });

  it("a FIFO named like a lesson is refused at once, not waited on", async () => {
    execFileSync("mkfifo", [join(dir, "fifo.yaml")]);
    expect(await readLessonBytes(join(dir, "fifo.yaml"))).toEqual({
      ok: false,
      reason: "lesson-invalid: not a regular file (a lesson is read only from one)",
    });
  });

  it("a folder is refused the same way", async () => {
    expect(await readLessonBytes(dir)).toMatchObject({ ok: false, reason: expect.stringMatching(/not a regular file|EISDIR/) });
  });

  it("a missing file says it cannot be read, with its code", async () => {
    expect(await readLessonBytes(join(dir, "missing.yaml"))).toEqual({ ok: false, reason: "cannot read the file (ENOENT)" });
  });
});

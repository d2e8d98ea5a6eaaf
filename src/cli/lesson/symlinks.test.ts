import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runLessonTest } from "./test";

// Refused before any guest starts, so these run no guest.
const LESSON = `lesson: 1
title: Sent to me
steps:
  - title: Read a recording
    run: curl -s https://example.com/key
    expect:
      - exit: 0
`;

describe("npx tab lesson test refuses symlinks in a lesson folder", () => {
  let scratch = "";
  let secret = "";
  let stderr: string[] = [];
  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), "tab-lesson-links-"));
    secret = join(scratch, "tester-secret");
    await writeFile(secret, "the tester's private key");
    await mkdir(join(scratch, "sent/recordings/example.com"), { recursive: true });
    await writeFile(join(scratch, "sent/lesson.yaml"), LESSON);
    stderr = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      stderr.push(String(chunk));
      return true;
    });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(scratch, { recursive: true, force: true });
  });

  it("a link inside the recordings beside a lesson is refused, symlink-refused, exit 64", async () => {
    await symlink(secret, join(scratch, "sent/recordings/example.com/key"));
    const lines: string[] = [];
    const code = await runLessonTest([join(scratch, "sent/lesson.yaml")], (l) => lines.push(l));
    expect(code).toBe(64);
    expect(stderr.join("")).toMatch(/symlink-refused: the recordings folder beside it holds symbolic links \(.*example\.com\/key\)/);
    expect(lines).toEqual([]);
  });

  it("a recordings folder that is itself a link is refused", async () => {
    await rm(join(scratch, "sent/recordings"), { recursive: true });
    await symlink(scratch, join(scratch, "sent/recordings"));
    expect(await runLessonTest([join(scratch, "sent/lesson.yaml")], () => {})).toBe(64);
    expect(stderr.join("")).toMatch(/symlink-refused/);
  });

  it("a lesson file that is a link is refused", async () => {
    await symlink(join(scratch, "sent/lesson.yaml"), join(scratch, "linked.yaml"));
    expect(await runLessonTest([join(scratch, "linked.yaml")], () => {})).toBe(64);
    expect(stderr.join("")).toMatch(/linked\.yaml: symlink-refused: a lesson file is read only as a plain file/);
  });

  it("a link inside a --recordings folder is refused", async () => {
    await symlink(secret, join(scratch, "sent/recordings/example.com/key"));
    const code = await runLessonTest([join(scratch, "sent/lesson.yaml"), "--recordings", join(scratch, "sent/recordings")], () => {});
    expect(code).toBe(64);
    expect(stderr.join("")).toMatch(/--recordings .*symlink-refused/);
  });
});

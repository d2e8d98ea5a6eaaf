import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseLesson } from "../../lessons";

// The shipped curriculum (lessons/): every file is a valid lesson, `npx tab lesson check`
// passes on all of them, and lessons/index.json lists each exactly once, in order, as it is.
const root = join(import.meta.dirname, "..", "..", "..");
const dir = join(root, "lessons");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

const Index = z.strictObject({
  version: z.literal(1),
  lessons: z.array(
    z.strictObject({
      name: z.string(),
      file: z.string(),
      title: z.string(),
      steps: z.number().int().positive(),
      kind: z.enum(["demo", "task"]),
    }),
  ),
});

describe("the shipped curriculum", () => {
  it("has the tour, the verdict table and at least six more lessons", () => {
    expect(files).toContain("01-tour.yaml");
    expect(files).toContain("02-verdict-table.yaml");
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  for (const file of files)
    it(`${file} is a valid lesson`, () => {
      const parsed = parseLesson(readFileSync(join(dir, file), "utf8"));
      expect(parsed.ok ? [] : parsed.issues).toEqual([]);
    });

  it("passes npx tab lesson check, every file at once", async () => {
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(root, "bin", "tab.mjs"), "lesson", "check", ...files.map((f) => join(dir, f))],
        { cwd: root, timeout: 60_000 },
        (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
      );
    });
    expect(result.stdout.trim().split("\n")).toHaveLength(files.length);
    expect(result.code).toBe(0);
  });

  it("lists every lesson in lessons/index.json once, in order, with its title, step count and kind", () => {
    const index = Index.parse(JSON.parse(readFileSync(join(dir, "index.json"), "utf8")));
    expect(index.lessons.map((l) => l.file)).toEqual(files);
    for (const entry of index.lessons) {
      const parsed = parseLesson(readFileSync(join(dir, entry.file), "utf8"));
      if (!parsed.ok) throw new Error(`${entry.file} does not parse`);
      const kind = parsed.lesson.steps.every((s) => s.type === "demo") ? "demo" : "task";
      expect(entry).toEqual({
        name: entry.file.replace(/\.yaml$/, ""),
        file: entry.file,
        title: parsed.lesson.title,
        steps: parsed.lesson.steps.length,
        kind,
      });
    }
  });
});

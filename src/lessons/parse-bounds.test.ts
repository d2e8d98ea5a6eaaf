import { describe, expect, it } from "vitest";
import { LESSON_MAX_CHARS, LESSON_MAX_NODES, LESSON_MAX_PATTERN_INSTRUCTIONS, parseLesson } from "./parse";
import { ALIAS_BOMB } from "./testing/alias-bomb";

const keys = (n: number) => `lesson: 1\ntitle: Many keys\n${Array.from({ length: n }, (_, i) => `k${i}: 1`).join("\n")}\n`;

describe("reading a lesson is bounded in size, node count and alias expansion", () => {
  it("an alias bomb is lesson-invalid, lesson-alias-bomb, at its first alias, not expanded", () => {
    const parsed = parseLesson(ALIAS_BOMB);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.code).toBe("lesson-invalid");
    expect(parsed.issues).toEqual([
      { line: 4, column: 8, field: "", message: expect.stringMatching(/^lesson-alias-bomb: its aliases .* refused, not expanded/) },
    ]);
  });

  it("a few aliases a writer uses to repeat an item are read", () => {
    const text = `lesson: 1
title: Aliases
steps:
  - title: One
    run: "true"
    expect: &ok
      - exit: 0
  - title: Two
    run: "true"
    expect: *ok
`;
    const parsed = parseLesson(text);
    expect(parsed.ok && parsed.lesson.steps[1]?.expect).toEqual([{ exit: 0 }]);
  });

  it("26,000 keys ×10 (260,000) are refused by size, lesson-too-large", () => {
    const text = keys(260_000);
    expect(text.length).toBeGreaterThan(LESSON_MAX_CHARS);
    const parsed = parseLesson(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues[0]?.message).toMatch(new RegExp(`^lesson-too-large: the file is ${text.length} characters`));
  });

  it("keys within the size but past the node count are refused, lesson-too-large", () => {
    const text = keys(LESSON_MAX_NODES);
    expect(text.length).toBeLessThanOrEqual(LESSON_MAX_CHARS);
    const parsed = parseLesson(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toEqual([
      {
        line: 1,
        column: 1,
        field: "",
        message: `lesson-too-large: the file has more than ${LESSON_MAX_NODES} YAML nodes (keys, values, items)`,
      },
    ]);
  });

  it("a duplicate key among thousands is found (one set per mapping, not each key against every other)", () => {
    const text = `${keys(3000)}k17: 2\n`;
    const parsed = parseLesson(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toEqual([{ line: 3003, column: 1, field: "", message: "YAML: Map keys must be unique" }]);
  });
});

describe("a lesson's output patterns are capped in sum before any is compiled", () => {
  it("many patterns each under the cap, together past it, are lesson-too-large at the one that passes it", () => {
    const item = '      - output: "x{1000}y{1000}z{1000}w{1000}v{1000}"\n';
    const text = `lesson: 1\ntitle: Heavy\nsteps:\n  - title: S\n    run: "true"\n    expect:\n${item.repeat(25)}`;
    const parsed = parseLesson(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    // 5,000 estimated instructions each: the 21st passes 100,000 (line 7 holds the first).
    expect(parsed.issues).toEqual([
      {
        line: 27,
        column: 17,
        field: "",
        message: `lesson-too-large: the output patterns together would compile to more than ${LESSON_MAX_PATTERN_INSTRUCTIONS} instructions`,
      },
    ]);
  });
});

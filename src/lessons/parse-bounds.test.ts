import { describe, expect, it } from "vitest";
import { LESSON_MAX_CHARS, LESSON_MAX_NODES, parseLesson } from "./parse";
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

import { describe, expect, it } from "vitest";
import { judgeStep } from "./judge";
import { stepChecks } from "./run-rules";
import { ExpectItem, type LessonStep } from "./schema";
import { windowOf } from "./testing/windows";

// A `check` item: a command run after the step's command settled, passing on exit 0 within
// its time, so a step can verify a state the learner left (a file, a process, a setting).
const step: LessonStep = {
  title: "Leave a note",
  run: "echo hi > /tmp/note",
  expect: [{ exit: 0 }, { check: "test -s /tmp/note", within: 5 }],
};

describe("check items", () => {
  it("are run after the command, each within its time (10 s unless `within` says)", () => {
    expect(stepChecks(step)).toEqual([{ check: "test -s /tmp/note", timeoutMs: 5000 }]);
    expect(stepChecks({ ...step, expect: [{ check: "true" }] })).toEqual([{ check: "true", timeoutMs: 10_000 }]);
  });

  it("pass on exit 0 and fail, saying how, on another status, a time-out, or when not run", () => {
    const w = (checks: { status: number | null; timedOut: boolean; output?: string }[]) => ({
      ...windowOf("echo hi > /tmp/note", 0, []),
      checks: checks.map((c) => ({ check: "test -s /tmp/note", output: "", ...c })),
    });
    expect(judgeStep(step, w([{ status: 0, timedOut: false }])).passed).toBe(true);
    expect(judgeStep(step, w([{ status: 1, timedOut: false }])).items[1]?.detail).toMatch(/check `test -s \/tmp\/note` exited 1/);
    expect(judgeStep(step, w([{ status: null, timedOut: true }])).items[1]?.detail).toMatch(/did not finish within its time limit/);
    expect(judgeStep(step, windowOf("echo hi > /tmp/note", 0, [])).items[1]?.detail).toMatch(/was not run/);
  });

  it("are checked when read: `within` qualifies a check only, and is at most 60 s", () => {
    expect(ExpectItem.safeParse({ check: "true", within: 61 }).success).toBe(false);
    expect(ExpectItem.safeParse({ exit: 0, within: 5 }).success).toBe(false);
    expect(ExpectItem.safeParse({ check: "" }).success).toBe(false);
    expect(ExpectItem.safeParse({ check: "pgrep nc" }).success).toBe(true);
  });
});

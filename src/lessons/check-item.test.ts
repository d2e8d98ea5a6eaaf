import { describe, expect, it } from "vitest";
import { judgeStep } from "./judge";
import { runStepChecks, type StepCheck, stepChecks } from "./run-rules";
import { ExpectItem, type LessonStep } from "./schema";
import { windowOf } from "./testing/windows";

// A `check` item: a command run out of band (on the guest's control line, not in the learner's
// shell) after the step's command settled, passing on exit 0 within its time, so a step can
// verify a state the learner left (a file, a process, a setting).
const step: LessonStep = {
  title: "Leave a note",
  run: "echo hi > /tmp/note",
  expect: [{ exit: 0 }, { check: "test -s /tmp/note", within: 5 }],
};

describe("check items", () => {
  it("are run after the command, each within its time (10 s unless `within` says), as root unless `as: learner`", () => {
    expect(stepChecks(step)).toEqual([{ check: "test -s /tmp/note", as: "root", timeoutMs: 5000 }]);
    expect(stepChecks({ ...step, expect: [{ check: "true" }, { check: "test -f todo", as: "learner" }] })).toEqual([
      { check: "true", as: "root", timeoutMs: 10_000 },
      { check: "test -f todo", as: "learner", timeoutMs: 10_000 },
    ]);
  });

  it("are run in order through the host's runner, and what each did is what the judge reads", async () => {
    const asked: StepCheck[] = [];
    const twoChecks: LessonStep = { ...step, expect: [{ check: "test -s /tmp/note" }, { check: "pgrep nc", as: "learner", within: 2 }] };
    const runs = await runStepChecks(twoChecks, async (c) => {
      asked.push(c);
      return c.check === "pgrep nc" ? { status: null, timedOut: true, output: "" } : { status: 0, timedOut: false, output: "ok" };
    });
    expect(asked.map((c) => c.check)).toEqual(["test -s /tmp/note", "pgrep nc"]);
    expect(runs).toEqual([
      { check: "test -s /tmp/note", status: 0, timedOut: false, output: "ok" },
      { check: "pgrep nc", status: null, timedOut: true, output: "" },
    ]);
    const judged = judgeStep(twoChecks, { ...windowOf("echo hi > /tmp/note", 0, []), checks: runs });
    expect(judged.passed).toBe(false);
    expect(judged.items.map((i) => i.met)).toEqual([true, false]);
  });

  it("a step with no check runs none", async () => {
    let ran = 0;
    expect(
      await runStepChecks({ ...step, expect: [{ exit: 0 }] }, async () => {
        ran++;
        return { status: 0, timedOut: false, output: "" };
      }),
    ).toEqual([]);
    expect(ran).toBe(0);
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

  it("are checked when read: `within` and `as` qualify a check only, `within` is at most 60 s, `as` root or learner", () => {
    expect(ExpectItem.safeParse({ check: "true", within: 61 }).success).toBe(false);
    expect(ExpectItem.safeParse({ exit: 0, within: 5 }).success).toBe(false);
    expect(ExpectItem.safeParse({ check: "" }).success).toBe(false);
    expect(ExpectItem.safeParse({ check: "pgrep nc" }).success).toBe(true);
    expect(ExpectItem.safeParse({ check: "pgrep nc", as: "learner" }).success).toBe(true);
    expect(ExpectItem.safeParse({ check: "pgrep nc", as: "nobody" }).success).toBe(false);
    expect(ExpectItem.safeParse({ exit: 0, as: "root" }).success).toBe(false);
  });
});

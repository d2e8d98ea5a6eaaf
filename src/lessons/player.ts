import { z } from "zod";
import type { NewEvent } from "../log";
import { expectItemName } from "./item-name";
import { type JudgeBudget, judgeStep, type StepJudgement } from "./judge";
import { decisiveWords, stepCommand } from "./run-rules";
import { type Lesson, type LessonStep, stepHints, stepType } from "./schema";
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
  /** Failed attempts at the current step: how many of its escalating hints are shown. */
  failures: z.number().int().nonnegative().default(0),
});
export type LessonProgress = z.infer<typeof LessonProgress>;

/** One judged command, as both hosts show it. */
export interface StepAttempt {
  /** The step it was judged against (from 0). */
  step: number;
  passed: boolean;
  judgement: StepJudgement;
  /** The `lesson.step` event the host appends to its log. */
  event: NewEvent;
  /** The decision that decided, in a few words (`host-not-allowed by proxy (pastebin.com:443)`), when there was one. */
  verdict: string | null;
  /** The step's `explain` (passed) or its hint (failed). */
  note: string | null;
  /** The unmet items' details (what was seen instead): shown in the host, never posted out of it. */
  unmet: string[];
  /** The unmet items by name only (what an embed may post to its parent). */
  unmetItems: string[];
}

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
  /** Judges a command run while the current step was shown; null when the lesson is done or blocked. A pass moves to the next step. */
  onCommand(window: CommandWindow, budget?: JudgeBudget): StepJudgement | null;
  /** `onCommand`, with everything a host shows and logs for it; its event is not queued for `takeEvents`. */
  attempt(window: CommandWindow, budget?: JudgeBudget): StepAttempt | null;
  /** Makes `step` (from 0) the current step, keeping the steps passed so far (a link that names its step, `lesson test`). */
  jumpTo(step: number): void;
  /** Why no step is judged (a setup command failed: fatal in both hosts until a restart), or null. */
  readonly blocked: string | null;
  /** Records that a setup command failed: no step is judged until `restart`. */
  setupFailed(reason: string): void;
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

/** The hints shown after `failures` failed attempts: one more each time, all of them once exhausted; null with none. */
function hintsShown(step: LessonStep | undefined, failures: number): string | null {
  const hints = step ? stepHints(step) : [];
  if (hints.length === 0 || failures === 0) return null;
  return hints.slice(0, Math.min(failures, hints.length)).join("\n\n");
}

/** Starts (or resumes, from a saved progress for the same pin) a run of the lesson. */
export function createLessonRun(lesson: Lesson, pin: string, progress?: z.input<typeof LessonProgress>): LessonRun {
  const saved = LessonProgress.safeParse(progress);
  const resume = saved.success && (saved.data.pin === undefined || saved.data.pin === pin) ? saved.data : null;
  const total = lesson.steps.length;
  let index = Math.min(resume?.step ?? 0, total);
  let passed = new Set((resume?.passed ?? []).filter((n) => n <= total));
  let failures = resume?.failures ?? 0;
  let pending: NewEvent[] = [];
  let blocked: string | null = null;
  const current = () => (index < total ? (lesson.steps[index] ?? null) : null);
  const judge = (window: CommandWindow, budget?: JudgeBudget) => {
    const step = current();
    if (!step || blocked !== null) return null;
    const at = index;
    const missing = (step.needs ?? []).filter((n) => !passed.has(n));
    const judgement: StepJudgement =
      missing.length > 0
        ? {
            passed: false,
            items: [],
            decisive: null,
            explanation: `This step opens once step${missing.length > 1 ? "s" : ""} ${missing.join(", ")} passed; it was not judged.`,
          }
        : judgeStep(step, window, budget);
    if (judgement.passed) {
      passed.add(at + 1);
      index += 1;
      failures = 0;
    } else if (missing.length === 0) failures += 1;
    return { step: at, judgement, event: stepEvent(pin, at, step, judgement) };
  };
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
      return { pin, step: index, passed: [...passed].sort((a, b) => a - b), failures };
    },
    demoCommand() {
      const step = current();
      return step && stepType(step) === "demo" ? (step.run ?? null) : null;
    },
    showMe() {
      const step = current();
      return step ? stepCommand(step) : null;
    },
    onCommand(window, budget) {
      const judged = judge(window, budget);
      if (judged) pending.push(judged.event);
      return judged?.judgement ?? null;
    },
    attempt(window, budget) {
      const judged = judge(window, budget);
      if (!judged) return null;
      const { step, judgement, event } = judged;
      const unmet = judgement.items.filter((i) => !i.met);
      return {
        step,
        passed: judgement.passed,
        judgement,
        event,
        verdict: decisiveWords(judgement),
        note: judgement.passed ? (lesson.steps[step]?.explain ?? null) : hintsShown(lesson.steps[step], failures),
        unmet: unmet.map((i) => i.detail),
        unmetItems: unmet.map((i) => expectItemName(i.item)),
      };
    },
    jumpTo(step) {
      index = Math.max(0, Math.min(step, total));
      failures = 0;
    },
    get blocked() {
      return blocked;
    },
    setupFailed(reason) {
      blocked = reason;
    },
    takeEvents() {
      const out = pending;
      pending = [];
      return out;
    },
    restart() {
      index = 0;
      failures = 0;
      blocked = null;
      passed = new Set();
      pending = [];
    },
  };
}

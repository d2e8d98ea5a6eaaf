import type { NewEvent } from "../log";
import { VerdictCode } from "../log";
import type { StepJudgement } from "./judge";
import type { LessonIssue } from "./parse";
import { CHECK_DEFAULT_SECONDS, type CheckUser, type Lesson, type LessonStep, stepType } from "./schema";
import type { CheckRun } from "./window";

/**
 * The rules of a lesson run that both hosts (the page's player, `npx tab lesson test`) follow,
 * so that what CI proves is what a learner meets. The hosts only type and show.
 */

/**
 * How long a lesson command's connections may stay open after its end mark before its window
 * is judged anyway, in both hosts. A client ends once it has its answer, so its decisions
 * are on the log before its end mark; this only waits for connections a command left behind.
 */
export const LESSON_SETTLE_MS = 5_000;

/**
 * The command a host types for a step: a demo step's `run` (its Run button); a task step's
 * `solve`, else its `run` (Show me, and what `lesson test` types).
 */
export function stepCommand(step: LessonStep): string | null {
  if (stepType(step) === "task") return step.solve ?? step.run ?? null;
  return step.run ?? null;
}

/** A step's `check` command as a host runs it: after the step's command settled, as `as`, within its time. */
export interface StepCheck {
  check: string;
  as: CheckUser;
  timeoutMs: number;
}

/**
 * The checks a host runs after each command judged against `step`, in order: each as root
 * unless the item says `as: learner`, within `within` seconds (10 unless it says).
 */
export function stepChecks(step: LessonStep): StepCheck[] {
  return step.expect.flatMap((item) =>
    "check" in item ? [{ check: item.check, as: item.as ?? "root", timeoutMs: (item.within ?? CHECK_DEFAULT_SECONDS) * 1000 }] : [],
  );
}

/** How a host runs one check out of band: the guest's control line (src/machine's runGuestCheck). */
export type CheckRunner = (check: StepCheck) => Promise<Omit<CheckRun, "check">>;

/**
 * Runs a step's checks after its command settled, in order, each through `run`: out of band, on
 * the guest's control line (guest/src/tab-check.c), never in the learner's shell or on the
 * learner's screen. Both hosts call this one function with their guest's runner; the judge
 * reads what it returns (CommandWindow.checks).
 */
export async function runStepChecks(step: LessonStep, run: CheckRunner): Promise<CheckRun[]> {
  const runs: CheckRun[] = [];
  for (const check of stepChecks(step)) {
    const ran = await run(check);
    runs.push({ check: check.check, status: ran.status, timedOut: ran.timedOut, output: ran.output });
  }
  return runs;
}

/** How a setup command ended, as either host saw it. */
export interface SetupEnd {
  status: number | null;
  timedOut?: boolean;
  output?: string;
}

/**
 * A failed setup command is fatal in both hosts: the steps would be judged against a state the
 * lesson did not get, so no step is judged until the lesson is restarted (the page) and the
 * lesson fails (`lesson test`). Returns why, or null when the command succeeded.
 */
export function setupFailure(index: number, command: string, end: SetupEnd): string | null {
  if (!end.timedOut && end.status === 0) return null;
  const how = end.timedOut ? "timed out" : end.status === null ? "never reported a status" : `exited ${end.status}`;
  const tail = (end.output ?? "").trim().slice(-300);
  return `setup ${index + 1} \`${command}\` ${how}${tail ? `: ${tail}` : ""}`;
}

/**
 * A lesson's parse issues, one line each, at most `max` of them: `FILE:LINE:COLUMN field:
 * message` when the file is named (a terminal's editors jump to it), else `line L, column C,
 * field: message`.
 */
export function formatLessonIssues(issues: readonly LessonIssue[], options: { max?: number; file?: string } = {}): string[] {
  const { max = Number.POSITIVE_INFINITY, file } = options;
  return issues
    .slice(0, max)
    .map((i) =>
      file === undefined
        ? `line ${i.line}, column ${i.column}, ${i.field}: ${i.message}`
        : `${file}:${i.line}:${i.column} ${i.field}: ${i.message}`,
    );
}

export type LessonLoadSource = "url" | "link" | "bundled" | "file";

/** The `lesson.load` event of a lesson that was read. */
export function lessonLoadEvent(lesson: Lesson, pin: string, source: LessonLoadSource): NewEvent {
  return { kind: "lesson.load", pin, title: lesson.title, source, steps: lesson.steps.length };
}

/** A lesson's refused load, as its event (nothing was read: no pin, no title, no steps). */
export function refusedLoadEvent(source: LessonLoadSource, code: string, reason: string): NewEvent {
  const known = VerdictCode.safeParse(code);
  return {
    kind: "lesson.load",
    pin: "",
    title: "",
    source,
    steps: 0,
    code: known.success ? known.data : "lesson-invalid",
    reason: known.success ? reason : `${code}: ${reason}`,
  };
}

/** The decision that decided a step, in a few words: `host-not-allowed by proxy (pastebin.com:443)`. */
export function decisiveWords(judgement: StepJudgement): string | null {
  const d = judgement.decisive;
  if (!d) return null;
  return `${d.code ?? d.kind}${d.by ? ` by ${d.by}` : ""}${d.target ? ` (${d.target})` : ""}`;
}

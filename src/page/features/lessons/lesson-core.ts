import type { WatchedCommand } from "../../../console";
import {
  createLessonRun,
  decodeLessonDraft,
  draftLesson,
  encodeLessonDraft,
  expectItemName,
  type Lesson,
  LessonProgress,
  type LessonRun,
  parseLesson,
  type StepJudgement,
  serializeLesson,
  stepType,
} from "../../../lessons";
import { type NewEvent, VerdictCode } from "../../../log";
import type { Policy } from "../../../policy";
import type { LessonSource } from "./source";
import type { AttemptView, StepView } from "./view";

/**
 * The player's one door to the lessons core (src/lessons): parsing, the run that judges each
 * command against the current step, the draft from what was run, and the draft link. The
 * rest of the feature speaks only these small shapes.
 */
export interface LoadedLesson {
  lesson: Lesson;
  pin: string;
  title: string;
  summary: string | null;
  steps: StepView[];
  setup: readonly string[];
  policy: Policy | null;
  loadEvent: NewEvent;
}

export function loadLessonText(source: LessonSource): { ok: true; lesson: LoadedLesson } | { ok: false; code: string; reason: string } {
  const parsed = parseLesson(source.text);
  if (!parsed.ok) {
    const reason = parsed.issues
      .slice(0, 5)
      .map((i) => `line ${i.line}, column ${i.column}, ${i.field}: ${i.message}`)
      .join("; ");
    return { ok: false, code: parsed.code, reason };
  }
  const lesson = parsed.lesson;
  return {
    ok: true,
    lesson: {
      lesson,
      pin: source.pin,
      title: lesson.title,
      summary: lesson.summary ?? null,
      steps: lesson.steps.map((s) => ({
        title: s.title,
        text: s.text ?? "",
        type: stepType(s),
        run: s.run ?? null,
        hint: s.hint ?? null,
        solve: s.solve ?? null,
      })),
      setup: lesson.setup ?? [],
      policy: lesson.policy ?? null,
      loadEvent: { kind: "lesson.load", pin: source.pin, title: lesson.title, source: source.source, steps: lesson.steps.length },
    },
  };
}

export interface JudgedCommand {
  attempt: AttemptView;
  event: NewEvent;
  code: string | null;
  /** The unmet items by name only: what an embed may post to its parent (never the output). */
  unmetItems: string[];
}

export interface PlayerRun {
  readonly step: number;
  judge(window: WatchedCommand): JudgedCommand | null;
  progress(): unknown;
  restart(): void;
  jumpTo(step: number): void;
}

const verdictOf = (j: StepJudgement) =>
  j.decisive
    ? `${j.decisive.code ?? j.decisive.kind}${j.decisive.by ? ` by ${j.decisive.by}` : ""}${j.decisive.target ? ` (${j.decisive.target})` : ""}`
    : null;

/** A lesson's refused load, as its event (nothing was read: no pin, no title, no steps). */
export function refusedLoadEvent(source: "url" | "link" | "bundled", code: string, reason: string): NewEvent {
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

export function startRun(loaded: LoadedLesson, saved: unknown): PlayerRun {
  const kept = LessonProgress.safeParse(saved);
  let run: LessonRun = createLessonRun(loaded.lesson, loaded.pin, kept.success ? kept.data : undefined);
  return {
    get step() {
      return run.step;
    },
    judge(window) {
      const index = run.step;
      const judgement = run.onCommand(window);
      if (!judgement) return null;
      const step = loaded.lesson.steps[index]!;
      const unmet = judgement.items.filter((i) => !i.met).map((i) => i.detail);
      const events = run.takeEvents();
      return {
        attempt: {
          result: judgement.passed ? "passed" : "failed",
          step: index,
          explanation: judgement.explanation,
          verdict: verdictOf(judgement),
          note: judgement.passed ? (step.explain ?? null) : (step.hint ?? null),
          unmet,
        },
        event: events[events.length - 1]!,
        code: judgement.decisive?.code ?? null,
        unmetItems: judgement.items.filter((i) => !i.met).map((i) => expectItemName(i.item)),
      };
    },
    progress: () => run.progress,
    restart: () => run.restart(),
    jumpTo: (step) => {
      run = createLessonRun(loaded.lesson, loaded.pin, { pin: loaded.pin, step, passed: [] });
    },
  };
}

/** "Save as lesson": the YAML of a draft with one step per command, or why there is none. */
export function draftFromWindows(
  windows: readonly WatchedCommand[],
  options: { title: string; policy: Policy },
): { ok: true; yaml: string } | { ok: false; reason: string } {
  try {
    return { ok: true, yaml: serializeLesson(draftLesson(windows, options)) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

export async function encodeDraft(yaml: string): Promise<{ ok: true; fragment: string } | { ok: false; reason: string }> {
  try {
    return { ok: true, fragment: await encodeLessonDraft(yaml) };
  } catch (error) {
    return {
      ok: false,
      reason: `the draft is too large for a link (${(error as Error).message}): download it and publish it pinned instead`,
    };
  }
}

export const decodeDraft = decodeLessonDraft;

import type { WatchedCommand } from "../../../console";
import {
  type CommandWindow,
  createLessonRun,
  decodeLessonDraft,
  draftLesson,
  encodeLessonDraft,
  formatLessonIssues,
  type Lesson,
  LessonProgress,
  type LessonRun,
  lessonLoadEvent,
  parseLesson,
  refusedLoadEvent,
  serializeLesson,
  stepCommand,
  stepType,
} from "../../../lessons";
import type { NewEvent } from "../../../log";
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
  if (!parsed.ok) return { ok: false, code: parsed.code, reason: formatLessonIssues(parsed.issues, { max: 5 }).join("; ") };
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
        command: stepCommand(s),
      })),
      setup: lesson.setup ?? [],
      policy: lesson.policy ?? null,
      loadEvent: lessonLoadEvent(lesson, source.pin, source.source),
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

/** The core's run (src/lessons), and what the player shows of each judged command. */
export interface PlayerRun {
  readonly step: number;
  readonly blocked: string | null;
  judge(window: CommandWindow): JudgedCommand | null;
  progress(): unknown;
  restart(): void;
  jumpTo(step: number): void;
  setupFailed(reason: string): void;
}

export { refusedLoadEvent };

export function startRun(loaded: LoadedLesson, saved: unknown): PlayerRun {
  const kept = LessonProgress.safeParse(saved);
  const run: LessonRun = createLessonRun(loaded.lesson, loaded.pin, kept.success ? kept.data : undefined);
  return {
    get step() {
      return run.step;
    },
    get blocked() {
      return run.blocked;
    },
    judge(window) {
      const a = run.attempt(window);
      if (!a) return null;
      return {
        attempt: {
          result: a.passed ? "passed" : "failed",
          step: a.step,
          explanation: a.judgement.explanation,
          verdict: a.verdict,
          note: a.note,
          unmet: a.unmet,
        },
        event: a.event,
        code: a.judgement.decisive?.code ?? null,
        unmetItems: a.unmetItems,
      };
    },
    progress: () => run.progress,
    restart: () => run.restart(),
    jumpTo: (step) => run.jumpTo(step),
    setupFailed: (reason) => run.setupFailed(reason),
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

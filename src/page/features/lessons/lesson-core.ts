import type { WatchedCommand } from "../../../console";
import {
  decodeLessonDraft,
  draftLesson,
  encodeLessonDraft,
  formatLessonIssues,
  type Lesson,
  lessonLoadEvent,
  parseLesson,
  refusedLoadEvent,
  serializeLesson,
  stepCommand,
  stepHints,
  stepType,
} from "../../../lessons";
import type { NewEvent } from "../../../log";
import { messageOf } from "../../../platform";
import type { Policy } from "../../../policy";
import type { LessonSource } from "./source";
import type { StepView } from "./view";

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
  /**
   * Shipped with this deployment (`?lesson=NAME`, the index), not brought by a link or a URL:
   * its commands may be typed with no click (docs/decisions/0028, the design's trust levels).
   */
  builtIn: boolean;
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
        hint: stepHints(s)[0] ?? null,
        solve: s.solve ?? null,
        command: stepCommand(s),
      })),
      setup: lesson.setup ?? [],
      policy: lesson.policy ?? null,
      loadEvent: lessonLoadEvent(lesson, source.pin, source.source),
      builtIn: source.source === "bundled",
    },
  };
}

export { refusedLoadEvent };

/** "Save as lesson": the YAML of a draft with one step per command, or why there is none. */
export function draftFromWindows(
  windows: readonly WatchedCommand[],
  options: { title: string; policy: Policy },
): { ok: true; yaml: string } | { ok: false; reason: string } {
  try {
    return { ok: true, yaml: serializeLesson(draftLesson(windows, options)) };
  } catch (error) {
    return { ok: false, reason: messageOf(error) };
  }
}

export async function encodeDraft(yaml: string): Promise<{ ok: true; fragment: string } | { ok: false; reason: string }> {
  try {
    return { ok: true, fragment: await encodeLessonDraft(yaml) };
  } catch (error) {
    return {
      ok: false,
      reason: `the draft is too large for a link (${messageOf(error)}): download it and publish it pinned instead`,
    };
  }
}

export const decodeDraft = decodeLessonDraft;

import { z } from "zod";
import type { TourStep } from "./steps";

/** Where the tour keeps its progress (localStorage), namespaced to this app. */
export const TOUR_STORAGE_KEY = "linux-in-a-tab:tour";

/** The stored form: by step id, so a reordered step table never lands on the wrong step. */
export const StoredTourProgress = z.object({
  version: z.literal(1),
  step: z.string(),
  finished: z.boolean(),
});
export type StoredTourProgress = z.infer<typeof StoredTourProgress>;

/** Where the trainee is: the index of the current step, or past the last one. */
export interface TourProgress {
  stepIndex: number;
  finished: boolean;
}

export const TOUR_START: TourProgress = { stepIndex: 0, finished: false };

export interface LoadedProgress {
  /** null: the tour was never started in this browser. */
  progress: TourProgress | null;
  /** Why stored progress was thrown away (the tour then starts again at step 1). */
  problem: string | null;
}

/**
 * Reads stored progress. Storage is outside input (another tab, an extension, an older build
 * wrote it): anything that does not parse resets to step 1 with a note, never a crash.
 */
export function loadProgress(text: string | null, steps: readonly TourStep[]): LoadedProgress {
  if (text === null) return { progress: null, problem: null };
  const reset = (why: string): LoadedProgress => ({
    progress: TOUR_START,
    problem: `The saved tour progress ${why}; the tour starts again at step 1.`,
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return reset("is not valid JSON");
  }
  const parsed = StoredTourProgress.safeParse(json);
  if (!parsed.success) return reset("does not have the expected shape");
  const stepIndex = steps.findIndex((s) => s.id === parsed.data.step);
  if (stepIndex < 0) return reset(`names a step this tour does not have (${parsed.data.step.slice(0, 40)})`);
  return { progress: { stepIndex, finished: parsed.data.finished }, problem: null };
}

export function saveProgress(progress: TourProgress, steps: readonly TourStep[]): string {
  const step = steps[Math.min(progress.stepIndex, steps.length - 1)];
  const stored: StoredTourProgress = { version: 1, step: step?.id ?? "", finished: progress.finished };
  return JSON.stringify(stored);
}

/** The progress after the current step passed: the next step, or finished after the last. */
export function advance(progress: TourProgress, steps: readonly TourStep[]): TourProgress {
  if (progress.finished) return progress;
  const next = progress.stepIndex + 1;
  return next < steps.length ? { stepIndex: next, finished: false } : { stepIndex: steps.length - 1, finished: true };
}

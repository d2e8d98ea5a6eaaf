import { z } from "zod";
import type { TextStore } from "../../local-text-store";

export type { TextStore };

/** Where this browser keeps lesson progress: one localStorage entry, one record per lesson pin. */
export const LESSON_PROGRESS_KEY = "tab.lessons.progress.v1";
/** A browser keeps the newest this many lessons' progress. */
const MAX_LESSONS = 200;

const ProgressRecord = z.object({
  title: z.string().max(500),
  steps: z.number().int().min(0).max(1000),
  passed: z.number().int().min(0).max(1000),
  /** The lesson run's own progress, checked again by the run when it is restored. */
  run: z.unknown(),
  savedAt: z.number(),
});
export type ProgressRecord = z.infer<typeof ProgressRecord>;
const ProgressFile = z.record(z.string().regex(/^[0-9a-f]{64}$/), ProgressRecord);

export interface LessonProgressStore {
  get(pin: string): ProgressRecord | null;
  /** False when the browser would not keep it (it lasts until the page is left). */
  put(pin: string, record: ProgressRecord): boolean;
  forget(pin: string): boolean;
  /** Why the saved progress was not used (unreadable), once; null when it was fine. */
  readonly problem: string | null;
}

export function createProgressStore(store: TextStore): LessonProgressStore {
  let problem: string | null = null;
  const read = (): Record<string, ProgressRecord> => {
    const text = store.read();
    if (text === null) return {};
    try {
      const parsed = ProgressFile.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      problem = `the saved lesson progress is not in the expected form (${parsed.error.issues[0]?.message ?? "invalid"}); it starts afresh`;
    } catch {
      problem = "the saved lesson progress is not JSON; it starts afresh";
    }
    return {};
  };
  let all = read();
  const save = () => {
    const pins = Object.keys(all).sort((a, b) => (all[b]?.savedAt ?? 0) - (all[a]?.savedAt ?? 0));
    for (const pin of pins.slice(MAX_LESSONS)) delete all[pin];
    return store.write(JSON.stringify(all));
  };
  return {
    get: (pin) => {
      all = read();
      return all[pin] ?? null;
    },
    put: (pin, record) => {
      all = { ...read(), [pin]: record };
      return save();
    },
    forget: (pin) => {
      all = read();
      delete all[pin];
      return save();
    },
    get problem() {
      return problem;
    },
  };
}

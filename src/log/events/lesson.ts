import { z } from "zod";
import { Decider, VerdictCode } from "../verdict";

/**
 * A lesson loaded for a run (its pin, title, where it came from, how many steps) or refused
 * (`lesson-invalid`, `lesson-pin-mismatch`, or the resolver's code for a lesson it could not
 * obtain), with the reason.
 */
export const LessonLoad = z.object({
  kind: z.literal("lesson.load"),
  /** sha256 of the lesson's bytes, lowercase hex; "" when nothing was read. */
  pin: z.string(),
  title: z.string(),
  source: z.enum(["url", "link", "bundled", "file"]),
  steps: z.number().int().nonnegative(),
  /** Present on a refusal: the lesson was not loaded. */
  code: VerdictCode.optional(),
  reason: z.string().optional(),
});

/**
 * One command judged against a lesson's current step: passed (every expect item held) or
 * failed, with the decision or kernel result that decided it and the items it did not meet.
 */
export const LessonStepEvent = z.object({
  kind: z.literal("lesson.step"),
  pin: z.string(),
  /** The step's number, from 1. */
  step: z.number().int().positive(),
  title: z.string(),
  result: z.enum(["passed", "failed"]),
  /** The event kind of the decisive outcome (`proxy.decision`, `kernel.result`, …). */
  decisiveKind: z.string().optional(),
  code: z.string().optional(),
  by: Decider.optional(),
  target: z.string().optional(),
  /** What the step expected and did not see, one line per unmet item. */
  unmet: z.array(z.string()),
  message: z.string(),
});

export const lessonEvents = [LessonLoad, LessonStepEvent] as const;

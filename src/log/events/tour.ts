import { z } from "zod";

/**
 * The guided training tour: a step shown, passed on the right outcome, answered
 * with what happened instead on a wrong one, the tour finished or restarted. Deliberately not a
 * `scenario` event: share links replay scenarios, and a trainee's typing is not replayable.
 */
export const TourStepEvent = z.object({
  kind: z.literal("tour.step"),
  /** The step's id in the tour's step table (src/page/features/tour/steps.ts). */
  step: z.string(),
  phase: z.enum(["start", "passed", "wrong", "finished", "restart"]),
  message: z.string(),
});

export const tourEvents = [TourStepEvent] as const;

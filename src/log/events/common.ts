import { z } from "zod";
import { Decider, VerdictCode } from "../verdict";

/** Fields every event carries once it is on the log (set by the log, not the producer). */
export const Stamp = z.object({
  /** Position on the log: strictly increasing, never reused, survives ring drops. */
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the Unix epoch, from the log's injected clock. */
  time: z.number(),
  /** Set when the log cut this event to fit its bounds; each cut is marked in place ("…[N more characters]"). */
  truncated: z.literal(true).optional(),
});

/** A verdict as it appears inside events: the same four fields as `Verdict`. */
export const VerdictFields = {
  allowed: z.boolean(),
  code: VerdictCode,
  reason: z.string(),
  by: Decider,
};

import { z } from "zod";

/** A scenario or tour step starting or finishing, so replays can compare sequences. */
export const ScenarioEvent = z.object({
  kind: z.literal("scenario"),
  id: z.string(),
  phase: z.enum(["start", "done", "failed"]),
  message: z.string(),
});

/** A free-form note from the page or CLI host (warnings a user should see). */
export const NoteEvent = z.object({
  kind: z.literal("note"),
  level: z.enum(["info", "warning", "error"]),
  source: z.string(),
  message: z.string(),
});

export const sessionEvents = [ScenarioEvent, NoteEvent] as const;

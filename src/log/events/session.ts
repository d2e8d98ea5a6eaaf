import { z } from "zod";

/**
 * What a console task is: a verdict-table row, an agent run, a lesson's step. Logs written
 * before acts were named carry none and read as "scenario".
 */
export const ScenarioAct = z.enum(["scenario", "agent-run", "lesson-step"]);
export type ScenarioAct = z.infer<typeof ScenarioAct>;

/**
 * A console task (a scenario, an agent run, a lesson step) starting or finishing, so replays
 * can compare sequences; `act` says which kind of task it is.
 * `interrupted`: a person pressed Ctrl+C during its command (exit status 130);
 * `cancelled`: a person cancelled it while it waited for the shell, before it typed anything.
 */
export const ScenarioEvent = z.object({
  kind: z.literal("scenario"),
  act: ScenarioAct.default("scenario"),
  id: z.string(),
  phase: z.enum(["start", "done", "failed", "interrupted", "cancelled"]),
  message: z.string(),
});

/** A free-form note from the page or CLI host (warnings a user should see). */
export const NoteEvent = z.object({
  kind: z.literal("note"),
  level: z.enum(["info", "warning", "error"]),
  source: z.string(),
  message: z.string(),
});

/**
 * The first line of a JSON lines export of a log that has dropped older events (its bounds,
 * src/log/bound.ts): how many, so a reader knows the export does not start at the beginning.
 * Never appended: the export writes it, with the `seq` of the newest dropped event.
 */
export const LogDropped = z.object({
  kind: z.literal("log.dropped"),
  dropped: z.number().int().nonnegative(),
  message: z.string(),
});

export const sessionEvents = [ScenarioEvent, NoteEvent, LogDropped] as const;

import { z } from "zod";

/**
 * One step of an agent run, as the guest runner reported it (guest/runner/README.md): the
 * run id, which script spoke (`tab-run` prepares and restores, `tab-agent` acts), the step's
 * name and outcome, and the redacted line. The page's own runner notes use source `runner`.
 */
export const RunnerStepEvent = z.object({
  kind: z.literal("runner.step"),
  run: z.string(),
  source: z.enum(["runner", "tab-run", "tab-agent"]),
  /** `verify`, `quarantine`, `capture`, … for tab-run; the verb (`fetch`, `read`, …) for tab-agent. */
  step: z.string(),
  /** The step's outcome word (`ok`, `denied`, `refused`, …) when it has one. */
  outcome: z.string().nullable(),
  level: z.enum(["info", "warning", "error"]),
  message: z.string(),
});

export const runnerEvents = [RunnerStepEvent] as const;

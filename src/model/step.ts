import type { z } from "zod";
import { quoteLine } from "./answer";

/**
 * The model's reply must be exactly one agent step line, `VERB [ARGUMENT]` (guest/runner/README.md),
 * with a verb the model may use and the runner's own step rules (`AgentStep`, injected). A code
 * fence or backticks around that one line are tolerated; anything else is refused, never guessed.
 */
export interface StepRules {
  /** The verbs the model may answer with (the runner's, without `model` itself). */
  verbs: readonly string[];
  /** The runner's rule for one step line. */
  schema: z.ZodType<string>;
}

export type StepAnswer = { ok: true; step: string } | { ok: false; reason: string };

function unwrap(text: string): string {
  const trimmed = text.trim();
  const fenced = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(trimmed);
  const inner = (fenced ? fenced[1]! : trimmed).trim();
  const ticked = /^`([^`]+)`$/.exec(inner);
  return ticked ? ticked[1]!.trim() : inner;
}

export function extractStep(text: string, rules: StepRules): StepAnswer {
  const lines = unwrap(text)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  if (lines.length === 0) return { ok: false, reason: "the model answered nothing" };
  if (lines.length > 1)
    return { ok: false, reason: `the model answered ${lines.length} lines, not one step line: ${quoteLine(lines.join(" / "))}` };
  const step = lines[0]!;
  const verb = step.split(" ", 1)[0]!;
  if (!rules.verbs.includes(verb))
    return { ok: false, reason: `"${quoteLine(verb, 40)}" is not a step the agent may take (${rules.verbs.join(", ")})` };
  const checked = rules.schema.safeParse(step);
  if (!checked.success) return { ok: false, reason: `"${quoteLine(step)}": ${checked.error.issues[0]?.message ?? "not a step line"}` };
  return { ok: true, step: checked.data };
}

import type { EventLog, Verdict } from "../log";

export type SkillsStepName = "search" | "resolve" | "list" | "fetch" | "verify" | "admit" | "attach" | "inspect";

export interface StepFields {
  id: string;
  detail: string;
  handle?: string;
  url?: string;
  sha256?: string;
}

/**
 * Appends one `skills.step` event. Callers pass ids, addresses, digests and counts only; no
 * caller has the skill text in scope when it logs (every step is an event, and no
 * event carries the text).
 */
export function logStep(log: EventLog, step: SkillsStepName, fields: StepFields, verdict: Verdict): void {
  log.append({ kind: "skills.step", step, ...fields, ...verdict });
}

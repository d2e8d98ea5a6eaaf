import { z } from "zod";
import { VerdictFields } from "./common";

/**
 * One step of skill discovery or acquisition. Never carries the skill's text: only
 * ids, addresses, digests and sizes. `inspect` is an operator reading the text in the
 * inspection view; `attach` is the text being given to a run.
 */
export const SkillsStep = z.object({
  kind: z.literal("skills.step"),
  step: z.enum(["search", "resolve", "list", "fetch", "verify", "admit", "attach", "inspect"]),
  id: z.string(),
  detail: z.string(),
  handle: z.string().optional(),
  /** The URL this step fetched, when it fetched one. */
  url: z.string().optional(),
  /** Host-computed lowercase hex sha256 of the bytes this step judged, when there were bytes. */
  sha256: z.string().optional(),
  ...VerdictFields,
});

export const skillsEvents = [SkillsStep] as const;

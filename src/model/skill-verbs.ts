import { z } from "zod";
import type { Verdict } from "../log";
import { quoteLine } from "./answer";
import type { VerbUsage } from "./prompt";

/**
 * The skill verbs of the model-driven agent (docs/decisions/0003-skills-from-a-public-registry.md): steps the page takes itself, inside
 * `POST /v0/model`, without the guest. `search_skills QUERY` (offered only when a registry is
 * configured) gives metadata; `acquire_skill ID` gives a handle; `use_skill HANDLE` puts the
 * skill's `<skill_context>` block into the model's context. What the model is shown of them is
 * ids, sanitized names, handles, sizes and counts: never a pin, a commit, a digest or a source
 * address, and never the text outside its block. The host implements `ModelSkills` with
 * src/skills' `createModelSkillTools`, which keeps the pin on the handle's record.
 */

type Failure = { ok: false; verdict: Verdict };

/** What a search shows: ids, sanitized names, sources, unverified install counts. */
export interface SkillSearchHit {
  id: string;
  name: string;
  source: string;
  installsUnverified: number | null;
}
export type SkillSearchResult = { ok: true; registry: string; hits: SkillSearchHit[]; dropped: number } | Failure;
export type SkillAcquireResult = { ok: true; handle: string; id: string; bytes: number; scripts: number } | Failure;
export type SkillUseResult = { ok: true; handle: string; context: string; scripts: "none" | "allowed" | "held" } | Failure;

export interface ModelSkills {
  /** The configured registry's origin, or null: then `search_skills` is not offered. */
  readonly registry: string | null;
  search(query: string): Promise<SkillSearchResult>;
  acquire(id: string): Promise<SkillAcquireResult>;
  use(handle: string): Promise<SkillUseResult>;
  /** Withholds every stretch of a used skill's text (what the model writes back). */
  scrub(text: string): string;
}

export const SKILL_VERBS = ["search_skills", "acquire_skill", "use_skill"] as const;
export type SkillVerb = (typeof SKILL_VERBS)[number];

/** One skill step line: the verb and one argument of at most 300 visible characters. */
export const SkillStepLine = z
  .string()
  .regex(
    /^(?:search_skills|acquire_skill|use_skill) [^\s\u0000-\u001f\u007f][^\u0000-\u001f\u007f]{0,299}$/,
    "must be VERB ARGUMENT on one line",
  );

/** The skill verbs this run offers, explained for the system prompt. */
export function skillVerbUsages(skills: ModelSkills): VerbUsage[] {
  const out: VerbUsage[] = [];
  if (skills.registry !== null)
    out.push({
      verb: "search_skills",
      usage: `search_skills QUERY — search the skill registry (${skills.registry}): ids and names only, install counts unverified`,
    });
  out.push(
    { verb: "acquire_skill", usage: "acquire_skill ID — acquire a skill by its owner/repo/slug id; you get a handle, not the text" },
    {
      verb: "use_skill",
      usage: "use_skill HANDLE — attach an acquired skill to yourself: its text joins your context as a <skill_context> block",
    },
  );
  return out;
}

/** A step the page took, placed in the transcript after the guest's `after`-th step. */
export interface PageStep {
  after: number;
  step: string;
  lines: string[];
}

/** A pin-shaped string (a full commit SHA, a sha256) in anything the page says: withheld. */
const PIN_SHAPES = /\b(?:[0-9a-f]{64}|[0-9a-f]{40})\b/gi;
const withholdPins = (text: string): string => text.replace(PIN_SHAPES, "[pin withheld]");

const refusedLine = (verb: SkillVerb, verdict: Verdict): string =>
  `page: step=${verb} outcome=refused code=${verdict.code} -- ${quoteLine(withholdPins(verdict.reason), 200)}`;

export interface SkillStepResult {
  lines: string[];
  /** A skill the step attached: its block for the model's context. */
  attached?: { handle: string; context: string };
}

/** Takes one skill step; every line it returns is pin-free. */
export async function runSkillStep(step: string, skills: ModelSkills): Promise<SkillStepResult> {
  const verb = step.slice(0, step.indexOf(" ")) as SkillVerb;
  const argument = step.slice(verb.length + 1).trim();
  if (verb === "search_skills") {
    const outcome = await skills.search(argument);
    if (!outcome.ok) return { lines: [refusedLine(verb, outcome.verdict)] };
    return {
      lines: [
        `page: step=search_skills outcome=ok hits=${outcome.hits.length} dropped=${outcome.dropped} -- metadata only; names are the registry's, install counts unverified`,
        ...outcome.hits.map(
          (h) =>
            `page: | ${h.id} name=${JSON.stringify(quoteLine(h.name, 120))} source=${h.source} installs_unverified=${h.installsUnverified ?? "none"}`,
        ),
      ].map(withholdPins),
    };
  }
  if (verb === "acquire_skill") {
    const outcome = await skills.acquire(argument);
    if (!outcome.ok) return { lines: [refusedLine(verb, outcome.verdict)] };
    return {
      lines: [
        withholdPins(
          `page: step=acquire_skill outcome=ok handle=${outcome.handle} id=${outcome.id} bytes=${outcome.bytes} scripts=${outcome.scripts} -- use_skill ${outcome.handle} to attach it`,
        ),
      ],
    };
  }
  const outcome = await skills.use(argument);
  if (!outcome.ok) return { lines: [refusedLine(verb, outcome.verdict)] };
  return {
    lines: [
      `page: step=use_skill outcome=ok handle=${outcome.handle} scripts=${outcome.scripts} -- its text is in your context now (system prompt, <skill_context source="handle:${outcome.handle}">)`,
    ],
    attached: { handle: outcome.handle, context: outcome.context },
  };
}

/** How many steps the guest's transcript holds (its `> STEP` lines). */
export function guestStepCount(transcript: string): number {
  return transcript.split("\n").filter((line) => line.startsWith("> ")).length;
}

/**
 * The guest's transcript with the page's steps in their places: each after the output of the
 * guest step it followed (before the next `> STEP` line), in the order they were taken.
 */
export function mergeTranscript(transcript: string, steps: readonly PageStep[]): string {
  if (steps.length === 0) return transcript;
  const lines = transcript.replace(/\n+$/, "").split("\n");
  const out: string[] = [];
  let seen = 0;
  let next = 0;
  const flush = (upTo: number) => {
    while (next < steps.length && steps[next]!.after <= upTo) {
      out.push(`> ${steps[next]!.step}`, ...steps[next]!.lines);
      next++;
    }
  };
  for (const line of lines) {
    if (line.startsWith("> ")) {
      flush(seen);
      seen++;
    }
    out.push(line);
  }
  flush(Number.POSITIVE_INFINITY);
  return `${out.join("\n")}\n`;
}

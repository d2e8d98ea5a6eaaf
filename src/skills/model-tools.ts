import { refuse, type Verdict } from "../log";
import { acquireSkill } from "./acquire";
import type { AcquireDeps } from "./admit";
import { type AttachedSkill, attachSkill, scriptsGiven } from "./attach";
import { parseSkillId } from "./id";
import { scrubSkillText } from "./scrub";
import { DEFAULT_SEARCH_LIMIT, searchSkills } from "./search";

/**
 * Skills for a model-driven agent (docs/decisions/0003-skills-from-a-public-registry.md): the same discovery, pinned acquisition and
 * handle attachment as the Skills panel, seen through what a model may be shown. A search
 * gives metadata only (ids, sanitized names, sources, unverified install counts); an
 * acquisition gives the handle, the id, the text's size and how many scripts are held, never
 * the text, the pin, the commit, the digest or the source address; using a handle gives the
 * text wrapped in `<skill_context source="handle:…">` for the model's context. The pin stays on
 * the handle's record, and scripts reach the run only for a pin the operator allowed.
 */

export interface ModelSkillHit {
  id: string;
  name: string;
  source: string;
  installsUnverified: number | null;
}

export type ModelToolFailure = { ok: false; verdict: Verdict };

export type ModelSearch = { ok: true; registry: string; hits: ModelSkillHit[]; dropped: number } | ModelToolFailure;
export type ModelAcquire = { ok: true; handle: string; id: string; bytes: number; scripts: number } | ModelToolFailure;
export type ModelUse =
  | {
      ok: true;
      handle: string;
      /** The wrapped block for the model's context. */
      context: string;
      scripts: "none" | "allowed" | "held";
    }
  | ModelToolFailure;

export interface ModelSkillTools {
  /** The configured registry's origin; null means `search_skills` is not offered. */
  readonly registry: string | null;
  search(query: string): Promise<ModelSearch>;
  acquire(id: string): Promise<ModelAcquire>;
  use(handle: string): Promise<ModelUse>;
  /** `text` with every stretch of a used skill's text withheld (`scrubSkillText`). */
  scrub(text: string): string;
}

export interface ModelSkillDeps extends AcquireDeps {
  /** The registry the operator configured, or null: no search then. */
  registry: string | null;
  /** The pins the operator allowed scripts for (the Skills panel's per-pin choice). */
  scriptPins(): ReadonlySet<string>;
  /** Called with each skill a run attached, scripts decided: the host delivers it to the run. */
  onAttach?(skill: AttachedSkill): void | Promise<void>;
  searchLimit?: number;
  /** How many distinct skills one run may attach (default 8). */
  maxAttached?: number;
}

/** The text inside a `<skill_context …>` block (`wrapSkillContext`), without its header and footer lines. */
function unwrapSkillContext(block: string): string {
  return block.replace(/^<skill_context[^>\n]*>\n/, "").replace(/\n<\/skill_context>\n?$/, "");
}

export function createModelSkillTools(deps: ModelSkillDeps): ModelSkillTools {
  const attached = new Set<string>();
  const texts: string[] = [];
  const maxAttached = deps.maxAttached ?? 8;
  return {
    registry: deps.registry,

    async search(query) {
      if (deps.registry === null)
        return { ok: false, verdict: refuse("endpoint-not-allowed", "no skill registry is configured for this run", "skills") };
      const outcome = await searchSkills(
        { query, registry: deps.registry, limit: deps.searchLimit ?? DEFAULT_SEARCH_LIMIT },
        { fetch: deps.fetch, log: deps.log },
      );
      if (!outcome.ok) return outcome;
      return {
        ok: true,
        registry: outcome.registry,
        hits: outcome.hits.map((h) => ({ id: h.id, name: h.name, source: h.source, installsUnverified: h.installsUnverified })),
        dropped: outcome.dropped.count,
      };
    },

    async acquire(id) {
      // A model names a skill by its discovery id; the page resolves the pin and keeps it.
      if (parseSkillId(id) === null)
        return {
          ok: false,
          verdict: refuse("bad-request", "name a skill by its owner/repo/slug id; the page resolves and keeps its pin", "skills"),
        };
      const outcome = await acquireSkill(id, deps);
      if (!outcome.ok) return outcome;
      const { record } = outcome;
      return { ok: true, handle: record.handle, id: record.discoveryId, bytes: record.skillMdBytes, scripts: record.scripts.length };
    },

    async use(handle) {
      if (!attached.has(handle) && attached.size >= maxAttached)
        return { ok: false, verdict: refuse("breadth-exceeded", `a run may use at most ${maxAttached} skills`, "skills") };
      const outcome = await attachSkill(handle, deps.scriptPins(), deps);
      if (!outcome.ok) return outcome;
      const context = new TextDecoder().decode(outcome.skill.context);
      // What is withheld is the skill's own text, not its wrapper: the wrapper's header names
      // the handle, and the model must still be able to say the handle back.
      if (!attached.has(handle)) texts.push(unwrapSkillContext(context));
      attached.add(handle);
      await deps.onAttach?.(outcome.skill);
      return { ok: true, handle, context, scripts: scriptsGiven(outcome.skill) };
    },

    scrub: (text) => scrubSkillText(text, texts),
  };
}

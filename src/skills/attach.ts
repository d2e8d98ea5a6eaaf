import { sha256Hex, utf8 } from "../bytes";
import { refuse, type Verdict } from "../log";
import { mayRunScripts, type OpenDeps, openSkillText } from "./handle";
import { logStep } from "./steps";
import type { SkillHandleRecord } from "./store";

/** A script given to a run: allowed for this exact pin, its bytes re-verified against the record. */
export interface RunScript {
  /** The file name under `scripts/`. */
  name: string;
  bytes: Uint8Array;
  sha256: string;
}

/**
 * The block a skill's text is given to a run in: `<skill_context source="handle:…">`, naming
 * the handle only. The pin and the digest stay on the handle's record and the run's activation
 * (a well-known pin is the SKILL.md digest itself), so no text an agent or model reads carries
 * them. A closing or opening `skill_context` tag inside the text is defused (`<` becomes
 * `&lt;`), so the text cannot end its own block early and pose as something outside it.
 */
export function wrapSkillContext(handle: string, text: string): string {
  const defused = text.replace(/<(\/?\s*skill_context)/gi, "&lt;$1");
  return `<skill_context source="handle:${handle}">\n${defused}\n</skill_context>\n`;
}

/**
 * A skill given to one run (the load path: by handle only). `context` is the text wrapped in a
 * `<skill_context source="handle:…">` block (`wrapSkillContext`); `activation` is what the run's record carries so a
 * reader of the run can say which bytes shaped the work: the handle, the digest of the exact
 * text injected, and the pin the acquisition recorded.
 */
export interface AttachedSkill {
  record: SkillHandleRecord;
  context: Uint8Array;
  activation: { handle: string; discoveryId: string; pin: string; contextSha256: string; skillMdSha256: string };
  /** The scripts, only when the operator allows scripts for this exact pin; else none. */
  scripts: RunScript[];
  /** Why the scripts were given or held host-side. */
  scriptsVerdict: Verdict;
}

/** What a run was given of a skill's scripts: it has none, they were allowed, or held host-side. */
export function scriptsGiven(skill: Pick<AttachedSkill, "record" | "scripts">): "none" | "allowed" | "held" {
  if (skill.record.scripts.length === 0) return "none";
  return skill.scripts.length > 0 ? "allowed" : "held";
}

export type Attached = { ok: true; skill: AttachedSkill } | { ok: false; verdict: Verdict };

/**
 * Reads the text behind `handle` for a run (the one explicit `attach` read, logged), wraps it,
 * and decides its scripts: `mayRunScripts` against the operator's allowed pins (default refuse,
 * logged either way). A script whose stored bytes no longer hash to the record refuses the
 * whole attachment: a run never gets a script the acquisition did not admit.
 */
export async function attachSkill(handle: string, allowedPins: ReadonlySet<string>, deps: OpenDeps): Promise<Attached> {
  const opened = await openSkillText(handle, "attach", deps);
  if (!opened.ok) return opened;
  const { record, text } = opened;
  const context = utf8(wrapSkillContext(record.handle, text.reveal()));
  const activation = {
    handle: record.handle,
    discoveryId: record.discoveryId,
    pin: record.pin,
    contextSha256: await sha256Hex(context),
    skillMdSha256: record.skillMdSha256,
  };
  const base = { id: record.discoveryId, handle: record.handle };
  if (record.scripts.length === 0) {
    const scriptsVerdict = refuse("not-allowlisted", "this skill holds no scripts", "skills");
    return { ok: true, skill: { record, context, activation, scripts: [], scriptsVerdict } };
  }
  const scriptsVerdict = mayRunScripts(record, allowedPins);
  const detail = scriptsVerdict.allowed
    ? `${record.scripts.length} scripts given to the run (allowed for this pin)`
    : `${record.scripts.length} scripts held host-side, not given to the run`;
  logStep(deps.log, "attach", { ...base, detail }, scriptsVerdict);
  if (!scriptsVerdict.allowed) return { ok: true, skill: { record, context, activation, scripts: [], scriptsVerdict } };

  const scripts: RunScript[] = [];
  for (const held of record.scripts) {
    const bytes = await deps.store.get(held.sha256).catch(() => null);
    if (!bytes || (await sha256Hex(bytes)) !== held.sha256) {
      const verdict = refuse("cache-corrupt", `the store holds no bytes hashing to ${held.sha256} (${held.path})`, "skills");
      logStep(deps.log, "attach", { ...base, detail: "attach refused", sha256: held.sha256 }, verdict);
      return { ok: false, verdict };
    }
    scripts.push({ name: held.path.replace(/^scripts\//, ""), bytes, sha256: held.sha256 });
  }
  return { ok: true, skill: { record, context, activation, scripts, scriptsVerdict } };
}

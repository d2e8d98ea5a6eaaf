import { sha256Hex } from "../bytes";
import { allow, type EventLog, refuse, type Verdict } from "../log";
import { logStep } from "./steps";
import type { SkillBlobStore, SkillHandleRecord, SkillHandleStore } from "./store";

/**
 * Reading a skill's text is one explicit call, logged, separate from everything that shows a
 * skill (loading is by handle: the text never reaches whoever chose it). What it returns keeps the
 * text behind `reveal()`: serializing or printing it shows only its digest, so a view that
 * passes it along by accident renders nothing of the text.
 */
export class SkillText {
  readonly #text: string;
  readonly handle: string;
  readonly sha256: string;

  constructor(text: string, handle: string, sha256: string) {
    this.#text = text;
    this.handle = handle;
    this.sha256 = sha256;
  }

  /** The text itself: for the inspection view and for attaching to a run, nothing else. */
  reveal(): string {
    return this.#text;
  }

  toJSON(): { handle: string; sha256: string; text: "[withheld]" } {
    return { handle: this.handle, sha256: this.sha256, text: "[withheld]" };
  }

  toString(): string {
    return `[skill text withheld: ${this.handle}]`;
  }
}

export interface OpenDeps {
  store: SkillBlobStore;
  handles: SkillHandleStore;
  log: EventLog;
}

/** Why the text is being read: an operator inspecting it, or a run being given it. */
export type OpenPurpose = "inspect" | "attach";

export type Opened = { ok: true; text: SkillText; record: SkillHandleRecord } | { ok: false; verdict: Verdict };

/**
 * The text behind a handle. Handle-table membership is mandatory, and the bytes are re-hashed
 * against the record. Every failure is stated in terms of the handle, never the text.
 */
export async function openSkillText(handle: string, purpose: OpenPurpose, deps: OpenDeps): Promise<Opened> {
  const record = await deps.handles.get(handle);
  if (!record) {
    const verdict = refuse("not-allowlisted", "that handle is not in the handle table", "skills");
    logStep(deps.log, purpose, { id: "(unknown)", handle, detail: "open refused" }, verdict);
    return { ok: false, verdict };
  }
  const base = { id: record.discoveryId, handle, sha256: record.skillMdSha256 };
  // A CAS may throw on a corrupt entry rather than answer null: both are the same refusal here.
  const bytes = await deps.store.get(record.skillMdSha256).catch(() => null);
  if (!bytes || (await sha256Hex(bytes)) !== record.skillMdSha256) {
    const verdict = refuse("cache-corrupt", `the store holds no bytes hashing to ${record.skillMdSha256}`, "skills");
    logStep(deps.log, purpose, { ...base, detail: "open refused" }, verdict);
    return { ok: false, verdict };
  }
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const detail = purpose === "attach" ? "SKILL.md attached to a run" : "SKILL.md opened for inspection";
  logStep(deps.log, purpose, { ...base, detail }, allow(detail, "skills"));
  return { ok: true, text: new SkillText(text, handle, record.skillMdSha256), record };
}

/**
 * Whether the scripts held for this handle may run: only when the operator's allow-set names
 * this exact pin. Default refuse: an empty set, a different commit or digest, or a skill with
 * no scripts all refuse. Acquisition itself never runs anything.
 */
export function mayRunScripts(record: SkillHandleRecord, allowed: ReadonlySet<string> | readonly string[]): Verdict {
  const pins: ReadonlySet<string> = allowed instanceof Set ? allowed : new Set(allowed as readonly string[]);
  if (record.scripts.length === 0) return refuse("not-allowlisted", "this skill holds no scripts", "skills");
  if (!pins.has(record.pin)) return refuse("not-allowlisted", `scripts are not allowed for pin ${record.pin}`, "skills");
  return allow(`scripts allowed for pin ${record.pin}`, "skills");
}

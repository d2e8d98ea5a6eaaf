import { toHex } from "../bytes";
import { allow, type EventLog, refuse, type Verdict } from "../log";
import { type Clock, systemClock } from "../platform";
import type { SkillsFetch } from "./fetch";
import { logStep } from "./steps";
import type { HeldScript, SkillBlobStore, SkillHandleRecord, SkillHandleStore } from "./store";

/** What acquisition needs from its host. */
export interface AcquireDeps {
  fetch: SkillsFetch;
  log: EventLog;
  store: SkillBlobStore;
  handles: SkillHandleStore;
  clock?: Clock;
  /** Mints an unguessable handle token; defaults to 128 random bits. */
  newHandle?: () => string;
}

export type Acquired = { ok: true; record: SkillHandleRecord; verdict: Verdict } | { ok: false; verdict: Verdict };

/** A handle is a capability: 128 random bits, not derived from anything a publisher chose. */
export function randomHandle(): string {
  return `skill:${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;
}

/** SKILL.md must be non-empty valid UTF-8; a script must be valid UTF-8. Null when admissible. */
export function checkText(bytes: Uint8Array, relative: string): Verdict | null {
  if (relative === "SKILL.md" && bytes.byteLength === 0) return refuse("unparsable", "SKILL.md is empty", "skills");
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return refuse("unparsable", `${relative} is not valid UTF-8`, "skills");
  }
  return null;
}

export interface Admission {
  discoveryId: string;
  method: SkillHandleRecord["method"];
  sourceUrl: string;
  commitSha: string | null;
  indexDigest: string | null;
  pin: string;
  resolvedAt: string | null;
  skillMd: Uint8Array;
  scripts: { path: string; bytes: Uint8Array }[];
}

/**
 * The single point where fetched bytes are admitted: the text and scripts go into the store,
 * the record goes into the handle table, and only the record comes back.
 */
export async function admit(admission: Admission, deps: AcquireDeps): Promise<Acquired> {
  const clock = deps.clock ?? systemClock;
  const skillMdSha256 = await deps.store.put(admission.skillMd);
  const scripts: HeldScript[] = [];
  for (const script of admission.scripts) {
    scripts.push({ path: script.path, sha256: await deps.store.put(script.bytes), bytes: script.bytes.byteLength });
  }
  const record: SkillHandleRecord = {
    handle: (deps.newHandle ?? randomHandle)(),
    discoveryId: admission.discoveryId,
    method: admission.method,
    sourceUrl: admission.sourceUrl,
    commitSha: admission.commitSha,
    indexDigest: admission.indexDigest,
    pin: admission.pin,
    skillMdSha256,
    skillMdBytes: admission.skillMd.byteLength,
    scripts,
    resolvedAt: admission.resolvedAt,
    receivedAt: new Date(clock()).toISOString(),
  };
  await deps.handles.put(record);
  const verdict = allow(`admitted SKILL.md and ${scripts.length} scripts by ${record.method}`, "skills");
  logStep(
    deps.log,
    "admit",
    {
      id: record.discoveryId,
      handle: record.handle,
      sha256: skillMdSha256,
      detail: `handle minted; ${scripts.length} scripts held host-side`,
    },
    verdict,
  );
  return { ok: true, record, verdict };
}

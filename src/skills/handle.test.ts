import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import {
  acquireSkill,
  createMemoryBlobStore,
  createMemoryHandleStore,
  mayRunScripts,
  openSkillText,
  type SkillHandleRecord,
} from "./index";
import { githubRepo, SHA } from "./testing/github";
import { createRouteFetch } from "./testing/route-fetch";

// Loading is by handle: whoever chose a skill never reads its text; the text is
// read by one explicit call; scripts run only where the operator allows that exact pin.
const CANARY = "CANARY-SKILL-TEXT-7f3a";
const SKILL_MD = `# pdf\n\n${CANARY}\n`;

async function acquired(scripts = true) {
  const files: Record<string, string> = { "skills/pdf-tools/SKILL.md": SKILL_MD };
  if (scripts) files["skills/pdf-tools/scripts/run.sh"] = "#!/bin/sh\n";
  const fetch = createRouteFetch(await githubRepo({ files }));
  const log = createEventLog();
  const store = createMemoryBlobStore();
  const handles = createMemoryHandleStore();
  const outcome = await acquireSkill("acme/skills-repo/pdf-tools", { fetch, log, store, handles });
  if (!outcome.ok) throw new Error(outcome.verdict.reason);
  return { record: outcome.record, log, store, handles };
}

describe("handle records never contain the text", () => {
  it("no field of the record holds the text, and the schema has no field for it", async () => {
    const { record, handles } = await acquired();
    expect(JSON.stringify(record)).not.toContain(CANARY);
    expect(JSON.stringify(await handles.list())).not.toContain(CANARY);
    expect(Object.keys(record).sort()).toEqual(
      [
        "commitSha",
        "discoveryId",
        "handle",
        "indexDigest",
        "method",
        "pin",
        "receivedAt",
        "resolvedAt",
        "scripts",
        "skillMdBytes",
        "skillMdSha256",
        "sourceUrl",
      ].sort(),
    );
  });
});

describe("openSkillText is the one explicit way to the text", () => {
  it("attach returns the text behind reveal() and logs an attach step with the handle, not the text", async () => {
    const { record, log, store, handles } = await acquired();
    const opened = await openSkillText(record.handle, "attach", { store, handles, log });
    expect(opened.ok && opened.text.reveal()).toBe(SKILL_MD);
    const attach = log.ofKind("skills.step").at(-1);
    expect(attach).toMatchObject({ step: "attach", handle: record.handle, id: "acme/skills-repo/pdf-tools", allowed: true });
    expect(JSON.stringify(log.events())).not.toContain(CANARY);
  });

  it("inspect logs an inspect step", async () => {
    const { record, log, store, handles } = await acquired();
    await openSkillText(record.handle, "inspect", { store, handles, log });
    expect(log.ofKind("skills.step").at(-1)?.step).toBe("inspect");
  });

  it("the opened text serializes and prints as withheld, so passing it along by accident leaks nothing", async () => {
    const { record, log, store, handles } = await acquired();
    const opened = await openSkillText(record.handle, "inspect", { store, handles, log });
    expect(JSON.stringify(opened)).not.toContain(CANARY);
    expect(`${opened.ok ? opened.text : ""}`).not.toContain(CANARY);
    expect(String(opened.ok && opened.text)).toBe(`[skill text withheld: ${record.handle}]`);
  });

  it("a handle not in the handle table is refused in terms of the handle", async () => {
    const { log, store, handles } = await acquired();
    const opened = await openSkillText("skill:0000", "attach", { store, handles, log });
    expect(opened.ok ? null : opened.verdict.code).toBe("not-allowlisted");
  });

  it("bytes in the store that no longer hash to the record are cache-corrupt", async () => {
    const { record, log, store, handles } = await acquired();
    store.blobs.set(record.skillMdSha256, new TextEncoder().encode("tampered"));
    const opened = await openSkillText(record.handle, "attach", { store, handles, log });
    expect(opened.ok ? null : opened.verdict.code).toBe("cache-corrupt");
  });
});

describe("scripts run only where the operator allows that exact pin", () => {
  it.each([
    ["an empty allow-set refuses", () => [], false],
    ["the exact pin allows", (r: SkillHandleRecord) => [r.pin], true],
    ["the same skill at another commit refuses", () => [`acme/skills-repo/pdf-tools@${"0".repeat(40)}`], false],
    ["the bare id without a pin refuses", () => ["acme/skills-repo/pdf-tools"], false],
    ["the commit SHA alone refuses", () => [SHA], false],
  ])("%s", async (_name, allowed, expected) => {
    const { record } = await acquired();
    expect(mayRunScripts(record, allowed(record)).allowed).toBe(expected);
    expect(mayRunScripts(record, new Set(allowed(record))).allowed).toBe(expected);
  });

  it("a skill with no scripts has nothing to allow", async () => {
    const { record } = await acquired(false);
    expect(mayRunScripts(record, [record.pin])).toMatchObject({ allowed: false, code: "not-allowlisted" });
  });
});

import { describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import type { GuestPort } from "../console";
import { refuse } from "../log";
import { sharePath } from "../machine";
import type { AttachedSkill } from "../skills";
import { repositoryNotes, runtimeDeliverer, skillDeliverer } from "./run-time";

/** A guest whose 9p share is a map of written files, keyed by the share's path. */
function shareGuest(): { guest: GuestPort; files: Map<string, string> } {
  const files = new Map<string, string>();
  const guest = {
    writeFile: async (path: string, bytes: Uint8Array) => void files.set(sharePath(path), new TextDecoder().decode(bytes)),
  } as unknown as GuestPort;
  return { guest, files };
}

const delivery = (files: { path: string; text: string }[], kind: "file" | "directory") => ({
  run: "run-1",
  index: 2,
  url: "https://github.com/org/lib/tree/c/skills/lint",
  kind,
  sha256: "a".repeat(64),
  files: files.map((f) => ({ path: f.path, sha256: "b".repeat(64), bytes: utf8(f.text) })),
});

describe("a run-time fetch's delivery into the run's tree", () => {
  it("puts a directory's files under runtime/<N>/ of the run and tells the guest the directory", async () => {
    const { guest, files } = shareGuest();
    const notes: string[] = [];
    const deliver = runtimeDeliverer(guest, "run/run-1", (m) => notes.push(m));
    const answer = await deliver(
      delivery(
        [
          { path: "SKILL.md", text: "lint" },
          { path: "scripts/check.sh", text: "echo ok" },
        ],
        "directory",
      ),
    );
    expect(answer).toEqual({ path: "/mnt/tab/run/run-1/runtime/2" });
    expect([...files]).toEqual([
      ["/run/run-1/runtime/2/SKILL.md", "lint"],
      ["/run/run-1/runtime/2/scripts/check.sh", "echo ok"],
    ]);
    expect(notes[0]).toContain(`sha256=${"a".repeat(64)} to /mnt/tab/run/run-1/runtime/2 (directory, 2 files)`);
  });

  it("tells the guest a single file's own path", async () => {
    const { guest } = shareGuest();
    const answer = await runtimeDeliverer(guest, "run/run-1", () => undefined)(delivery([{ path: "notes.md", text: "n" }], "file"));
    expect(answer).toEqual({ path: "/mnt/tab/run/run-1/runtime/2/notes.md" });
  });

  it("refuses a file path that is not plain before writing anything", async () => {
    const { guest, files } = shareGuest();
    const deliver = runtimeDeliverer(guest, "run/run-1", () => undefined);
    await expect(
      deliver(
        delivery(
          [
            { path: "SKILL.md", text: "x" },
            { path: "../../bin/tab-run", text: "evil" },
          ],
          "directory",
        ),
      ),
    ).rejects.toThrow("not plain");
    expect(files.size).toBe(0);
  });
});

describe("a skill the model attached mid-run", () => {
  const skill = (scripts: AttachedSkill["scripts"]): AttachedSkill =>
    ({
      record: { scripts: [{ name: "run.sh" }] },
      context: utf8('<skill_context source="handle:skill:ab">text</skill_context>'),
      activation: { handle: "skill:ab", discoveryId: "o/r/s", pin: "c".repeat(40), contextSha256: "d".repeat(64), skillMdSha256: "e" },
      scripts,
      scriptsVerdict: refuse("not-allowlisted", "held host-side", "skills"),
    }) as unknown as AttachedSkill;

  it("is delivered as skills/<dir>/SKILL.md, without scripts when its pin was not allowed", async () => {
    const { guest, files } = shareGuest();
    const dir = await skillDeliverer(guest, "run/run-1", () => undefined)(skill([]));
    expect(dir).toBe("/mnt/tab/run/run-1/skills/skill-ab");
    expect([...files.keys()]).toEqual(["/run/run-1/skills/skill-ab/SKILL.md"]);
  });

  it("carries its scripts when the operator allowed its pin", async () => {
    const { guest, files } = shareGuest();
    await skillDeliverer(guest, "run/run-1", () => undefined)(skill([{ name: "run.sh", sha256: "f", bytes: utf8("echo") }]));
    expect(files.get("/run/run-1/skills/skill-ab/scripts/run.sh")).toBe("echo");
  });
});

describe("the caller repository's notes for the model", () => {
  it("are the delivered repository's AGENTS.md / CLAUDE.md, never its opencode config; none known for a guest workspace", () => {
    const notes = repositoryNotes({ "AGENTS.md": "be nice", "opencode.json": "{}", ".opencode/AGENTS.md": "x", "sub/CLAUDE.md": "c" });
    expect(notes?.map((n) => n.path)).toEqual(["AGENTS.md", "sub/CLAUDE.md"]);
    expect(repositoryNotes(null)).toBeNull();
  });
});

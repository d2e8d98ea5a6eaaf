import { describe, expect, it } from "vitest";
import { sha256Hex, utf8 } from "../bytes";
import { createEventLog } from "../log";
import { acquireSkill, createMemoryBlobStore, createMemoryHandleStore, MAX_FILE_BYTES, rawUrl } from "./index";
import { type FileSpec, githubRepo, SHA } from "./testing/github";
import { countingStream, createRouteFetch, type RouteAnswer } from "./testing/route-fetch";

// Acquisition from a GitHub tree at a full commit SHA, one of the two pinned addresses
// (docs/decisions/0003-skills-from-a-public-registry.md), proven with a canary: whoever asked never receives the text.
const CANARY = "CANARY-SKILL-TEXT-7f3a";
const SKILL_MD = `---\nname: pdf-tools\ndescription: Extract text.\n---\n\n${CANARY}\n`;
const TREE = `https://api.github.com/repos/acme/skills-repo/git/trees/${SHA}?recursive=1`;
const raw = (path: string) => rawUrl("acme", "skills-repo", SHA, path);

async function acquire(files: Record<string, FileSpec>, patch: Record<string, RouteAnswer> = {}, id = "acme/skills-repo/pdf-tools") {
  const routes = { ...(await githubRepo({ files })), ...patch };
  const fetch = createRouteFetch(routes);
  const log = createEventLog();
  const store = createMemoryBlobStore();
  const handles = createMemoryHandleStore();
  const outcome = await acquireSkill(id, { fetch, log, store, handles, clock: () => Date.UTC(2026, 7, 28), newHandle: () => "skill:test" });
  return { outcome, fetch, log, store, handles };
}

const rawRequests = (requests: readonly string[]) => requests.filter((u) => u.startsWith("https://raw.githubusercontent.com/"));

describe("acquisition from a commit SHA admits the whitelisted payload behind a handle", () => {
  it("SKILL.md and scripts are fetched at the pinned SHA and stored; the record carries the provenance", async () => {
    const script = "#!/bin/sh\necho hi\n";
    const { outcome, store, handles, fetch } = await acquire({
      "README.md": "readme",
      "skills/pdf-tools/SKILL.md": SKILL_MD,
      "skills/pdf-tools/scripts/run.sh": { content: script, mode: "100755" },
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const skillSha = await sha256Hex(utf8(SKILL_MD));
    expect(outcome.record).toEqual({
      handle: "skill:test",
      discoveryId: "acme/skills-repo/pdf-tools",
      method: "git-commit-sha",
      sourceUrl: `https://github.com/acme/skills-repo/tree/${SHA}/skills/pdf-tools`,
      commitSha: SHA,
      indexDigest: null,
      pin: `acme/skills-repo/pdf-tools@${SHA}`,
      skillMdSha256: skillSha,
      skillMdBytes: utf8(SKILL_MD).byteLength,
      scripts: [{ path: "scripts/run.sh", sha256: await sha256Hex(utf8(script)), bytes: script.length }],
      resolvedAt: "2026-08-28T00:00:00.000Z",
      receivedAt: "2026-08-28T00:00:00.000Z",
    });
    expect(new TextDecoder().decode((await store.get(skillSha)) ?? new Uint8Array())).toBe(SKILL_MD);
    expect(await handles.get("skill:test")).toEqual(outcome.record);
    expect(rawRequests(fetch.requests)).toEqual([raw("skills/pdf-tools/SKILL.md"), raw("skills/pdf-tools/scripts/run.sh")]);
  });

  it("the handle record, the outcome and every log event are free of the skill text (canary)", async () => {
    const { outcome, log } = await acquire({ "skills/pdf-tools/SKILL.md": SKILL_MD });
    expect(outcome.ok).toBe(true);
    expect(JSON.stringify(outcome)).not.toContain(CANARY);
    expect(JSON.stringify(log.events())).not.toContain(CANARY);
    expect(log.ofKind("skills.step").map((e) => e.step)).toEqual(["resolve", "list", "fetch", "verify", "admit"]);
  });

  it("a root skill (repo name equal to the slug) is acquired from the repository root", async () => {
    const routes = await githubRepo({ repo: "pdf-tools", files: { "SKILL.md": SKILL_MD } });
    const fetch = createRouteFetch(routes);
    const outcome = await acquireSkill("acme/pdf-tools/pdf-tools", {
      fetch,
      log: createEventLog(),
      store: createMemoryBlobStore(),
      handles: createMemoryHandleStore(),
    });
    expect(outcome.ok && outcome.record.sourceUrl).toBe(`https://github.com/acme/pdf-tools/tree/${SHA}`);
    expect(outcome.ok && outcome.record.handle).toMatch(/^skill:[0-9a-f]{32}$/);
  });
});

describe("nothing is fetched when the listing already refuses", () => {
  it.each([
    [
      "a references/ directory",
      { "skills/pdf-tools/SKILL.md": SKILL_MD, "skills/pdf-tools/references/REF.md": "ref" },
      "payload-path-refused",
    ],
    [
      "a symlink",
      { "skills/pdf-tools/SKILL.md": SKILL_MD, "skills/pdf-tools/scripts/x": { content: "/etc/passwd", mode: "120000" } },
      "payload-path-refused",
    ],
    ["a submodule", { "skills/pdf-tools/SKILL.md": SKILL_MD, "skills/pdf-tools/vendor": { type: "commit" } }, "payload-path-refused"],
    [
      "a nested scripts directory",
      { "skills/pdf-tools/SKILL.md": SKILL_MD, "skills/pdf-tools/scripts/lib/a.py": "x" },
      "payload-path-refused",
    ],
    ["no candidate", { "skills/PDF-Tools/SKILL.md": SKILL_MD }, "no-candidate"],
    ["two candidates", { "a/pdf-tools/SKILL.md": SKILL_MD, "b/pdf-tools/SKILL.md": SKILL_MD }, "many-candidates"],
    [
      "17 scripts",
      Object.fromEntries([
        ["skills/pdf-tools/SKILL.md", SKILL_MD],
        ...Array.from({ length: 17 }, (_, i) => [`skills/pdf-tools/scripts/s${i}.sh`, "x"]),
      ]),
      "too-large",
    ],
    ["a file listed over 256 KiB", { "skills/pdf-tools/SKILL.md": { content: SKILL_MD, size: MAX_FILE_BYTES + 1 } }, "too-large"],
  ])("%s: refused with no raw file requested", async (_name, files, code) => {
    const { outcome, fetch, store, handles, log } = await acquire(files as Record<string, FileSpec>);
    expect(outcome.ok ? null : outcome.verdict.code).toBe(code);
    expect(rawRequests(fetch.requests)).toEqual([]);
    expect(store.blobs.size).toBe(0);
    expect(await handles.list()).toEqual([]);
    expect(log.ofKind("skills.step").at(-1)).toMatchObject({ step: "list", code });
  });

  it("a truncated listing refuses with nothing fetched", async () => {
    const routes = await githubRepo({ files: { "skills/pdf-tools/SKILL.md": SKILL_MD }, truncated: true });
    const fetch = createRouteFetch(routes);
    const outcome = await acquireSkill("acme/skills-repo/pdf-tools", {
      fetch,
      log: createEventLog(),
      store: createMemoryBlobStore(),
      handles: createMemoryHandleStore(),
    });
    expect(outcome.ok ? null : outcome.verdict.code).toBe("truncated-tree");
    expect(rawRequests(fetch.requests)).toEqual([]);
  });

  it("a listing without the truncated flag is unparsable", async () => {
    const { outcome } = await acquire({ "skills/pdf-tools/SKILL.md": SKILL_MD }, { [TREE]: { body: { sha: "x", tree: [] } } });
    expect(outcome.ok ? null : outcome.verdict.code).toBe("unparsable");
  });
});

describe("fetched bytes are capped while streaming, checked against the tree, and must be UTF-8", () => {
  it("a file that streams past 256 KiB is refused without reading it all", async () => {
    const big = countingStream(4 * 1024 * 1024);
    const { outcome, store } = await acquire(
      { "skills/pdf-tools/SKILL.md": { content: SKILL_MD } },
      { [raw("skills/pdf-tools/SKILL.md")]: { body: big.stream } },
    );
    expect(outcome.ok ? null : outcome.verdict.code).toBe("too-large");
    expect(big.pulled()).toBeLessThan(MAX_FILE_BYTES + 64 * 1024);
    expect(store.blobs.size).toBe(0);
  });

  it("a file of exactly 256 KiB is admitted", async () => {
    const exact = `${SKILL_MD}${"x".repeat(MAX_FILE_BYTES - utf8(SKILL_MD).byteLength)}`;
    const { outcome } = await acquire({ "skills/pdf-tools/SKILL.md": exact });
    expect(outcome.ok && outcome.record.skillMdBytes).toBe(MAX_FILE_BYTES);
  });

  it("a declared content-length over the cap is refused before reading", async () => {
    const { outcome } = await acquire(
      { "skills/pdf-tools/SKILL.md": SKILL_MD },
      { [raw("skills/pdf-tools/SKILL.md")]: { body: SKILL_MD, headers: { "content-length": String(MAX_FILE_BYTES + 1) } } },
    );
    expect(outcome.ok ? null : outcome.verdict.code).toBe("too-large");
  });

  it("bytes that differ from the blob the tree names are hash-mismatch", async () => {
    const { outcome, handles } = await acquire({ "skills/pdf-tools/SKILL.md": { content: SKILL_MD, serve: `${SKILL_MD}injected\n` } });
    expect(outcome.ok ? null : outcome.verdict.code).toBe("hash-mismatch");
    expect(await handles.list()).toEqual([]);
  });

  it.each([
    ["a SKILL.md that is not UTF-8", { "skills/pdf-tools/SKILL.md": new Uint8Array([0x23, 0x20, 0xff, 0xfe]) }],
    ["an overlong UTF-8 encoding", { "skills/pdf-tools/SKILL.md": new Uint8Array([0xc0, 0xaf]) }],
    [
      "a script that is not UTF-8",
      { "skills/pdf-tools/SKILL.md": SKILL_MD, "skills/pdf-tools/scripts/bin": new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x80]) },
    ],
    ["an empty SKILL.md", { "skills/pdf-tools/SKILL.md": "" }],
  ])("%s is unparsable", async (_name, files) => {
    const { outcome, handles } = await acquire(files);
    expect(outcome.ok ? null : outcome.verdict.code).toBe("unparsable");
    expect(await handles.list()).toEqual([]);
  });

  it("a raw file that is missing is bad-status", async () => {
    const { outcome } = await acquire(
      { "skills/pdf-tools/SKILL.md": SKILL_MD },
      { [raw("skills/pdf-tools/SKILL.md")]: { status: 404, body: "404: Not Found" } },
    );
    expect(outcome.ok ? null : outcome.verdict.code).toBe("bad-status");
  });

  it("a fetch that throws is fetch-failed", async () => {
    const outcome = await acquireSkill(`acme/skills-repo/pdf-tools@${SHA}`, {
      fetch: async () => {
        throw new TypeError("network down");
      },
      log: createEventLog(),
      store: createMemoryBlobStore(),
      handles: createMemoryHandleStore(),
    });
    expect(outcome.ok ? null : outcome.verdict.code).toBe("fetch-failed");
  });
});

describe("publisher-chosen directory names never reach the record raw", () => {
  it("the candidate root's parent directories are percent-encoded in the source URL", async () => {
    const { outcome, log } = await acquire({ "we ird\u202e/pdf-tools/SKILL.md": SKILL_MD });
    expect(outcome.ok && outcome.record.sourceUrl).toBe(`https://github.com/acme/skills-repo/tree/${SHA}/we%20ird%E2%80%AE/pdf-tools`);
    expect(JSON.stringify(log.events())).not.toContain("\u202e");
  });
});

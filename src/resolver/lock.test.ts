import { describe, expect, it } from "vitest";
import { createCas, createMemoryStore } from "../cas";
import { buildLockFile, createMemoryLocalFiles, lockNameOf, parseLockFile, renderLockFile, resolveHarness } from "./index";
import { createMemoryFetch, pinOf } from "./testing/memory-fetch";

const RAW = `https://raw.githubusercontent.com/org/lib/${"c".repeat(40)}`;
const ORG = { allowed_remote_resources: ["https://raw.githubusercontent.com/org/lib/"] };
const AGENT = "---\nname: a\n---\nbody\n";
const SCRIPT = "#!/bin/sh\necho hi\n";
const HARNESS = "agent: agents/a.md\npre_script: scripts/pre.sh\n";
const T0 = Date.UTC(2026, 4, 12, 10);

async function world() {
  const fetch = createMemoryFetch({ [`${RAW}/harness/h.yaml`]: HARNESS, [`${RAW}/agents/a.md`]: AGENT, [`${RAW}/scripts/pre.sh`]: SCRIPT });
  const cas = createCas({ store: createMemoryStore() });
  const harness = `${RAW}/harness/h.yaml#sha256=${await pinOf(HARNESS)}`;
  return { fetch, cas, harness, local: createMemoryLocalFiles({}) };
}

describe(".fullsend/lock.yaml, version 1", () => {
  it("is generated from a resolution, rendered as YAML, and read back by the schema unchanged", async () => {
    const { fetch, cas, harness, local } = await world();
    const resolution = await resolveHarness({ harness, fetch, cas, local, orgConfig: ORG, clock: () => T0 });
    const lock = buildLockFile(resolution, "h", T0);
    expect(lock).toMatchObject({
      version: 1,
      generated_at: "2026-05-12T10:00:00.000Z",
      harnesses: {
        h: {
          source: harness,
          sha256: await pinOf(HARNESS),
          dependencies: [
            { field: "agent", url: `${RAW}/agents/a.md`, sha256: await pinOf(AGENT), type: "file", fetched_at: "2026-05-12T10:00:00.000Z" },
            { field: "pre_script", url: `${RAW}/scripts/pre.sh`, sha256: await pinOf(SCRIPT), type: "file" },
          ],
        },
      },
    });
    const text = renderLockFile(lock);
    expect(parseLockFile(text)).toEqual({ ok: true, lock });
  });

  it.each([
    ["a version other than 1", "version: 2\ngenerated_at: x\nharnesses: {}\n", "version"],
    [
      "a dependency hash that is not 64 lowercase hex",
      `version: 1\ngenerated_at: x\nharnesses:\n  h:\n    source: s\n    sha256: ${"a".repeat(64)}\n    resolved_at: x\n    dependencies:\n      - {field: agent, url: u, sha256: ABC, type: file, fetched_at: x}\n`,
      "sha256",
    ],
    ["text that is not YAML", "version: [1\n", "not YAML"],
  ])("refuses %s", (_, text, mention) => {
    const parsed = parseLockFile(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(mention);
  });

  it("is preferred: an unpinned same-origin resource is served from the cache by the lock's hash, with no fetch", async () => {
    const { fetch, cas, harness, local } = await world();
    const first = await resolveHarness({ harness, fetch, cas, local, orgConfig: ORG });
    const lock = buildLockFile(first, "h", T0);
    fetch.calls.length = 0;
    const again = await resolveHarness({ harness, fetch, cas, local, orgConfig: ORG, lock, lockName: "h" });
    expect(again.resources.filter((r) => r.field !== "harness").map((r) => r.cache)).toEqual(["hit", "hit"]);
    expect(fetch.calls).toEqual([]);
  });

  it("warns when stale: the URL now serves other bytes than the lock records", async () => {
    const { fetch, cas, harness, local } = await world();
    const lock = buildLockFile(await resolveHarness({ harness, fetch, cas, local, orgConfig: ORG }), "h", T0);
    await cas.clear();
    fetch.routes[`${RAW}/scripts/pre.sh`] = "#!/bin/sh\necho changed\n";
    const again = await resolveHarness({ harness, fetch, cas, local, orgConfig: ORG, lock, lockName: "h" });
    const pre = again.resources.find((r) => r.field === "pre_script");
    expect(pre?.warning).toContain("lock.yaml is stale");
    expect(again.lints).toEqual([expect.objectContaining({ code: "lock-stale", severity: "warning", field: "pre_script" })]);
  });
});

describe("a harness's lock name is its file name, without .yaml and without the pin", () => {
  it.each([
    ["https://x.example/harness/review.yaml#sha256=" + "a".repeat(64), "review"],
    ["/.fullsend/harness/demo.yaml", "demo"],
    ["harness/Agent.YML", "Agent"],
    ["plain", "plain"],
  ])("%s → %s", (ref, name) => {
    expect(lockNameOf(ref)).toBe(name);
  });
});

import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { createMemoryBlobStore, createMemoryHandleStore, createModelSkillTools, type ModelSkillDeps } from "./index";
import { githubRepo, SHA } from "./testing/github";
import { createRouteFetch } from "./testing/route-fetch";

// The skill rules (docs/decisions/0003-skills-from-a-public-registry.md), as a model sees them: metadata from discovery, a handle from
// acquisition (never the text, the pin, the commit, the digest or the address), the text only
// through an attached handle, scripts only for a pin the operator allowed.

const ID = "acme/skills-repo/pdf-tools";

async function tools(over: Partial<ModelSkillDeps> = {}) {
  const fetch = createRouteFetch(await githubRepo({ files: { "skills/pdf-tools/SKILL.md": "# pdf\n\nread pdfs\n" } }));
  const handles = createMemoryHandleStore();
  const deps: ModelSkillDeps = {
    fetch,
    log: createEventLog(),
    store: createMemoryBlobStore(),
    handles,
    registry: null,
    scriptPins: () => new Set(),
    ...over,
  };
  return { tools: createModelSkillTools(deps), handles, fetch };
}

describe("skill tools for a model", () => {
  it("acquires by id and gives back the handle, id, size and script count only", async () => {
    const { tools: t, handles } = await tools();
    const acquired = await t.acquire(ID);
    if (!acquired.ok) throw new Error(acquired.verdict.reason);
    expect(Object.keys(acquired).sort()).toEqual(["bytes", "handle", "id", "ok", "scripts"]);
    expect(JSON.stringify(acquired)).not.toContain(SHA);
    expect((await handles.get(acquired.handle))?.pin).toBe(`${ID}@${SHA}`);
  });

  it.each([
    ["a pinned id", `${ID}@${SHA}`],
    ["a well-known address", "https://example.com/.well-known/agent-skills/index.json#pdf"],
    ["a path", "../../etc"],
  ])("refuses %s before any request: the page resolves and keeps the pin", async (_, id) => {
    const { tools: t, fetch } = await tools();
    expect(await t.acquire(id)).toMatchObject({ ok: false, verdict: { code: "bad-request", by: "skills" } });
    expect(fetch.requests).toEqual([]);
  });

  it("refuses a search when no registry is configured, before any request", async () => {
    const { tools: t, fetch } = await tools();
    expect(await t.search("pdf")).toMatchObject({ ok: false, verdict: { code: "endpoint-not-allowed" } });
    expect(fetch.requests).toEqual([]);
  });

  it("gives the text wrapped by handle only, and refuses more skills than the run may use", async () => {
    const { tools: t } = await tools({ maxAttached: 1 });
    const a = await t.acquire(ID);
    const b = await t.acquire(ID);
    if (!a.ok || !b.ok) throw new Error("acquisition failed");
    const used = await t.use(a.handle);
    expect(used).toMatchObject({ ok: true, handle: a.handle, scripts: "none" });
    expect(used.ok && used.context).toBe(`<skill_context source="handle:${a.handle}">\n# pdf\n\nread pdfs\n\n</skill_context>\n`);
    expect(await t.use(a.handle)).toMatchObject({ ok: true });
    expect(await t.use(b.handle)).toMatchObject({ ok: false, verdict: { code: "breadth-exceeded" } });
  });

  it("withholds a used skill's text from what the model writes back, but never its handle (the wrapper's header names it)", async () => {
    const { tools: t } = await tools();
    const a = await t.acquire(ID);
    if (!a.ok) throw new Error("acquisition failed");
    await t.use(a.handle);
    expect(t.scrub(`skill-script ${a.handle} extract.py`)).toBe(`skill-script ${a.handle} extract.py`);
  });

  it("refuses a handle that is not in the handle table", async () => {
    const { tools: t } = await tools();
    expect(await t.use("skill:00000000000000000000000000000000")).toMatchObject({ ok: false, verdict: { code: "not-allowlisted" } });
  });
});

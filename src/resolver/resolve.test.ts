import { describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import { createCas, createMemoryStore } from "../cas";
import { createEventLog } from "../log";
import { createMemoryLocalFiles, type LocalFiles, type ResolveOptions, resolveHarness } from "./index";
import { createMemoryFetch, githubRepo, pinOf, type Route } from "./testing/memory-fetch";

const C = "c".repeat(40);
const RAW = `https://raw.githubusercontent.com/org/lib/${C}`;
const ORG = { allowed_remote_resources: ["https://github.com/org/lib/", "https://raw.githubusercontent.com/org/lib/"] };
const AGENT = "---\nname: a\ndescription: d\n---\nbody\n";
const POLICY = "network: {}\n";
const skill = (deps: string[] = []) =>
  `---\nname: s\ndescription: d\n${deps.length ? `dependencies:\n${deps.map((d) => `  - ${d}`).join("\n")}\n` : ""}---\nx\n`;

function setup(harness: string, extraLocal: Record<string, string> = {}, routes: Record<string, Route> = {}) {
  const local = createMemoryLocalFiles({
    "/repo/.fullsend/harness/h.yaml": harness,
    "/repo/.fullsend/agents/a.md": AGENT,
    "/repo/.fullsend/policies/p.yaml": POLICY,
    "/repo/.fullsend/skills/s/SKILL.md": skill(),
    "/repo/.fullsend/scripts/pre.sh": "#!/bin/sh\n",
    "/etc/fullsend/agents/abs.md": AGENT,
    ...extraLocal,
  });
  const fetch = createMemoryFetch(routes);
  const log = createEventLog();
  const cas = createCas({ store: createMemoryStore(), log });
  const run = (over: Partial<ResolveOptions> = {}) =>
    resolveHarness({ harness: "/repo/.fullsend/harness/h.yaml", local, cas, fetch, log, orgConfig: ORG, runId: "r1", ...over });
  return { local, fetch, log, cas, run };
}
const byField = (r: Awaited<ReturnType<ReturnType<typeof setup>["run"]>>, field: string) => r.resources.find((x) => x.field === field);

describe("executable and configuration fields must be local", () => {
  const url = `${RAW}/x.sh#sha256=${"a".repeat(64)}`;
  it.each([
    ["pre_script", `pre_script: ${url}`],
    ["post_script", `post_script: ${url}`],
    ["agent_input", `agent_input: ${url}`],
    ["validation_loop.script", `validation_loop:\n  script: ${url}`],
    ["validation_loop.schema", `validation_loop:\n  schema: ${url}`],
    ["host_files[0].src", `host_files:\n  - src: ${url}\n    dest: /x`],
  ])("a URL in %s is executable-url and is never fetched", async (field, yaml) => {
    const { run, fetch } = setup(`agent: agents/a.md\n${yaml}\n`);
    const r = await run();
    expect(byField(r, field)?.verdict).toMatchObject({ allowed: false, code: "executable-url" });
    expect(r.ok).toBe(false);
    expect(fetch.calls).toEqual([]);
  });
});

describe("the three reference forms for declarative fields", () => {
  it.each([
    ["a relative path resolves against the directory holding harness/", "agents/a.md", true, null],
    ["an absolute path is read as is, even outside the base", "/etc/fullsend/agents/abs.md", true, null],
    ["a relative path climbing out of the base is path-outside-base", "../../etc/fullsend/agents/abs.md", false, "path-outside-base"],
    ["an unpinned URL is hash-missing", `${RAW}/agents/a.md`, false, "hash-missing"],
    ["an http URL is not-https", `http://raw.githubusercontent.com/org/lib/a.md#sha256=${"a".repeat(64)}`, false, "not-https"],
    ["an IP-literal URL is ip-literal", `https://185.199.108.133/org/lib/a.md#sha256=${"a".repeat(64)}`, false, "ip-literal"],
    ["a URL outside both allowlists is not-allowlisted", `https://evil.example/a.md#sha256=${"a".repeat(64)}`, false, "not-allowlisted"],
  ])("%s", async (_, ref, allowed, code) => {
    const { run } = setup(`agent: ${ref}\n`);
    const r = await run();
    expect(byField(r, "agent")?.verdict.allowed).toBe(allowed);
    if (code) expect(byField(r, "agent")?.verdict.code).toBe(code);
  });

  it("a pinned URL is fetched, checked on the bytes, cached, and rewritten to its cache location", async () => {
    const pin = await pinOf(AGENT);
    const { run, cas } = setup(`agent: ${RAW}/agents/a.md#sha256=${pin}\n`, {}, { [`${RAW}/agents/a.md`]: AGENT });
    const r = await run();
    expect(r.ok).toBe(true);
    expect(byField(r, "agent")).toMatchObject({ sha256: pin, cache: "miss", url: `${RAW}/agents/a.md` });
    expect(r.harness?.agent).toBe(cas.locate(pin));
  });

  it.each([
    ["bytes that do not match the pin are hash-mismatch", "agent", "tampered", "hash-mismatch"],
    [
      "an HTML page served with 200 for an agent is unparsable (gate on the parse, not the status)",
      "agent",
      "<!doctype html><html>login</html>",
      "unparsable",
    ],
    ["a policy that is not a YAML mapping is unparsable", "policy", "- just\n- a list\n", "unparsable"],
  ])("%s", async (_, field, body, code) => {
    const pin = code === "hash-mismatch" ? await pinOf(AGENT) : await pinOf(body);
    const { run } = setup(`${field}: ${RAW}/f#sha256=${pin}\n`, {}, { [`${RAW}/f`]: body });
    expect(byField(await run(), field)?.verdict.code).toBe(code);
  });

  it("a schema error names the field (invalid-harness)", async () => {
    const { run } = setup("agent: agents/a.md\nskills:\n  - 3\n");
    const r = await run();
    expect(r.resources[0]?.verdict).toMatchObject({ code: "invalid-harness", reason: expect.stringContaining("skills[0]") });
  });

  it("fields the resolver does not know pass through untouched", async () => {
    const { run } = setup("agent: agents/a.md\ntimeout_minutes: 20\nmodel: {name: x}\n");
    const r = await run();
    expect(r.harness).toMatchObject({ timeout_minutes: 20, model: { name: "x" }, agent: "/repo/.fullsend/agents/a.md" });
  });
});

describe("harness allowlist entries must be a subset, checked before any fetch", () => {
  it("a harness entry outside the org list rejects the harness and nothing is fetched", async () => {
    const pin = await pinOf(AGENT);
    const { run, fetch } = setup(
      `agent: ${RAW}/agents/a.md#sha256=${pin}\nallowed_remote_resources:\n  - https://attacker.example/\n`,
      {},
      { [`${RAW}/agents/a.md`]: AGENT },
    );
    const r = await run();
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("allowlist-not-subset");
    expect(r.error?.reason).toContain("allowed_remote_resources[0]");
    expect(fetch.calls).toEqual([]);
  });
});

describe("transitive closure: visited set, depth 10, breadth 50, one pin per URL", () => {
  it("a skill that depends on itself through another is a cycle", async () => {
    const files: Record<string, string> = {};
    const repo0 = await githubRepo("org", "lib", C, { "skills/a/SKILL.md": skill(), "skills/b/SKILL.md": skill() });
    const aUrl = repo0.treeUrl("skills/a");
    // Content pins make a true cycle a hash fixed point; b names a with any pin, and the
    // cycle must be reported before the pin conflict it also is.
    const bBody = skill([`${aUrl}#sha256=${"0".repeat(64)}`]);
    files["skills/b/SKILL.md"] = bBody;
    const tmp = await githubRepo("org", "lib", C, files);
    const bPin = await tmp.dirPin("skills/b");
    files["skills/a/SKILL.md"] = skill([`${tmp.treeUrl("skills/b")}#sha256=${bPin}`]);
    const repo = await githubRepo("org", "lib", C, files);
    const aPin = await repo.dirPin("skills/a");
    const { run } = setup(`skills:\n  - ${aUrl}#sha256=${aPin}\n`, {}, repo.routes);
    const r = await run();
    const b = byField(r, "skills[0].dependencies[0]");
    expect(b?.verdict.allowed).toBe(true);
    expect(byField(r, "skills[0].dependencies[0].dependencies[0]")?.verdict.code).toBe("cycle");
  });

  it("a chain of skills deeper than 10 is depth-exceeded", async () => {
    const files: Record<string, string> = {};
    let next: string | null = null;
    let pins: Record<string, string> = {};
    for (let i = 11; i >= 0; i--) {
      files[`skills/s${i}/SKILL.md`] = skill(next ? [next] : []);
      const repo = await githubRepo("org", "lib", C, files);
      pins = { ...pins, [i]: await repo.dirPin(`skills/s${i}`) };
      next = `${repo.treeUrl(`skills/s${i}`)}#sha256=${pins[i]}`;
    }
    const repo = await githubRepo("org", "lib", C, files);
    const { run } = setup(`skills:\n  - ${next}\n`, {}, repo.routes);
    const r = await run();
    const deepest = r.resources.filter((x) => x.field.startsWith("skills[0]")).at(-1);
    expect(deepest?.depth).toBe(11);
    expect(deepest?.verdict.code).toBe("depth-exceeded");
    expect(r.resources.filter((x) => x.depth <= 10 && x.depth >= 1).every((x) => x.verdict.allowed)).toBe(true);
  });

  it("a resource listing more than 50 dependencies is breadth-exceeded, before any of them is fetched", async () => {
    const routes: Record<string, Route> = {};
    const deps: string[] = [];
    for (let i = 0; i < 51; i++) {
      const body = `n: ${i}\n`;
      routes[`${RAW}/p/${i}.yaml`] = body;
      deps.push(`${RAW}/p/${i}.yaml#sha256=${await pinOf(body)}`);
    }
    const repo = await githubRepo("org", "lib", C, { "skills/many/SKILL.md": skill(deps) });
    const { run, fetch } = setup(
      `skills:\n  - ${repo.treeUrl("skills/many")}#sha256=${await repo.dirPin("skills/many")}\n`,
      {},
      { ...routes, ...repo.routes },
    );
    const r = await run();
    const refused = r.resources.filter((x) => !x.verdict.allowed);
    expect(refused.map((x) => [x.field, x.verdict.code])).toEqual([["skills[0].dependencies[50]", "breadth-exceeded"]]);
    expect(fetch.calls.filter((u) => u.includes("/p/"))).toEqual([]);
  });

  it("the per-harness total of distinct remote URLs is breadth-exceeded past its limit", async () => {
    const routes: Record<string, Route> = {};
    const deps: string[] = [];
    for (let i = 0; i < 4; i++) {
      const body = `n: ${i}\n`;
      routes[`${RAW}/p/${i}.yaml`] = body;
      deps.push(`${RAW}/p/${i}.yaml#sha256=${await pinOf(body)}`);
    }
    const repo = await githubRepo("org", "lib", C, { "skills/few/SKILL.md": skill(deps) });
    const { run } = setup(
      `skills:\n  - ${repo.treeUrl("skills/few")}#sha256=${await repo.dirPin("skills/few")}\n`,
      {},
      { ...routes, ...repo.routes },
    );
    const r = await run({ limits: { maxRemoteResources: 3 } });
    expect(r.resources.filter((x) => !x.verdict.allowed).map((x) => [x.field, x.verdict.code])).toEqual([
      ["skills[0].dependencies[2]", "breadth-exceeded"],
      ["skills[0].dependencies[3]", "breadth-exceeded"],
    ]);
  });

  it("the same URL pinned with two different hashes is hash-mismatch, saying so", async () => {
    const pin = await pinOf(POLICY);
    const { run } = setup(
      `policy: ${RAW}/p.yaml#sha256=${pin}\nskills:\n  - skills/s2\n`,
      { "/repo/.fullsend/skills/s2/SKILL.md": skill([`${RAW}/p.yaml#sha256=${"f".repeat(64)}`]) },
      { [`${RAW}/p.yaml`]: POLICY },
    );
    const dep = byField(await run(), "skills[0].dependencies[0]");
    expect(dep?.verdict).toMatchObject({ code: "hash-mismatch", reason: expect.stringContaining("two different hashes") });
  });

  it("a local skill directory holding a symlink is refused", async () => {
    const local: LocalFiles = {
      read: async (p) => (p.endsWith("h.yaml") ? utf8("skills:\n  - skills/s\n") : utf8(skill())),
      list: async (d) =>
        d.endsWith("skills/s")
          ? [
              { name: "SKILL.md", kind: "file" },
              { name: "evil", kind: "symlink" },
            ]
          : null,
    };
    const { run } = setup("");
    expect(byField(await run({ local }), "skills[0]")?.verdict.code).toBe("payload-path-refused");
  });
});

describe("base: composition", () => {
  it("a base seen twice is a cycle", async () => {
    const { run } = setup("base: harness/b.yaml\n", { "/repo/.fullsend/harness/b.yaml": "base: harness/h.yaml\n" });
    const r = await run();
    expect(r.error?.code).toBe("cycle");
  });

  it("a base chain deeper than 5 is depth-exceeded", async () => {
    const extra: Record<string, string> = {};
    for (let i = 0; i < 7; i++) extra[`/repo/.fullsend/harness/b${i}.yaml`] = `base: harness/b${i + 1}.yaml\n`;
    extra["/repo/.fullsend/harness/b7.yaml"] = "agent: agents/a.md\n";
    const { run } = setup("base: harness/b0.yaml\n", extra);
    expect((await run()).error?.code).toBe("depth-exceeded");
  });

  it("scripts a URL base declares are fetched from its origin, cached, and rewritten to cache paths; the child overrides fields", async () => {
    const baseYaml = "agent: agents/r.md\npre_script: scripts/pre.sh\n";
    const script = "#!/bin/sh\necho from-base\n";
    const { run, cas } = setup(
      `base: ${RAW}/harness/base.yaml#sha256=${await pinOf(baseYaml)}\nagent: agents/a.md\n`,
      {},
      {
        [`${RAW}/harness/base.yaml`]: baseYaml,
        [`${RAW}/scripts/pre.sh`]: script,
      },
    );
    const r = await run();
    expect(r.ok).toBe(true);
    expect(byField(r, "pre_script")).toMatchObject({ url: `${RAW}/scripts/pre.sh`, cache: "miss" });
    expect(r.harness).toMatchObject({ pre_script: cas.locate(await pinOf(script)), agent: "/repo/.fullsend/agents/a.md" });
    expect(r.harness).not.toHaveProperty("base");
  });
});

describe("a harness given by URL (the page's ?harness=URL#sha256=…)", () => {
  const harness = "agent: agents/a.md\npolicy: ../../../../evil.yaml\nskills:\n  - /etc/passwd\n";
  const routes = async () => ({ [`${RAW}/harness/h.yaml`]: harness, [`${RAW}/agents/a.md`]: AGENT });

  it("resolves relative references against the directory holding harness/", async () => {
    const { run } = setup("", {}, { [`${RAW}/harness/ok.yaml`]: "agent: agents/a.md\n", [`${RAW}/agents/a.md`]: AGENT });
    const r = await run({ harness: `${RAW}/harness/ok.yaml#sha256=${await pinOf("agent: agents/a.md\n")}`, local: undefined });
    expect(byField(r, "agent")).toMatchObject({ url: `${RAW}/agents/a.md`, verdict: { allowed: true } });
  });

  it("keeps path-outside-base for references climbing out of it or naming host paths, and then fetches nothing it names", async () => {
    const { run, fetch } = setup("", {}, await routes());
    const r = await run({ harness: `${RAW}/harness/h.yaml#sha256=${await pinOf(harness)}`, local: undefined });
    expect(byField(r, "policy")?.verdict.code).toBe("path-outside-base");
    expect(byField(r, "skills[0]")?.verdict.code).toBe("path-outside-base");
    expect(fetch.calls).toEqual([`${RAW}/harness/h.yaml`]);
  });

  it("falls back to the stale cache entry on a transient network error, with a warning", async () => {
    const ok = "agent: agents/a.md\n";
    const { run, fetch } = setup("", {}, { [`${RAW}/harness/ok.yaml`]: ok, [`${RAW}/agents/a.md`]: AGENT });
    const ref = `${RAW}/harness/ok.yaml#sha256=${await pinOf(ok)}`;
    await run({ harness: ref });
    fetch.routes[`${RAW}/agents/a.md`] = "network-error";
    const again = byField(await run({ harness: ref }), "agent");
    expect(again).toMatchObject({ cache: "stale", verdict: { allowed: true }, warning: expect.stringContaining("stale cache used") });
  });
});

describe("offline mode and cache warm", () => {
  it("offline, every missing resource is listed in one offline-miss error and nothing is fetched; after a warm, offline succeeds from the cache", async () => {
    const agentPin = await pinOf(AGENT);
    const policyPin = await pinOf(POLICY);
    const { run, fetch } = setup(
      `agent: ${RAW}/a.md#sha256=${agentPin}\npolicy: ${RAW}/p.yaml#sha256=${policyPin}\n`,
      {},
      { [`${RAW}/a.md`]: AGENT, [`${RAW}/p.yaml`]: POLICY },
    );
    const cold = await run({ offline: true });
    expect(cold.error?.code).toBe("offline-miss");
    expect(cold.error?.reason).toContain(`${RAW}/a.md`);
    expect(cold.error?.reason).toContain(`${RAW}/p.yaml`);
    expect(fetch.calls).toEqual([]);
    const warm = await run({ warm: true });
    expect(warm).toMatchObject({ ok: true, harness: null });
    const hot = await run({ offline: true });
    expect(hot.ok).toBe(true);
    expect([byField(hot, "agent")?.cache, byField(hot, "policy")?.cache]).toEqual(["hit", "hit"]);
  });

  it("a tampered cache entry is never served: offline it is a miss, online it is fetched again with a warning", async () => {
    const pin = await pinOf(AGENT);
    const { run, cas, log } = setup(`agent: ${RAW}/a.md#sha256=${pin}\n`, {}, { [`${RAW}/a.md`]: AGENT });
    await run();
    await cas.store.putBlob(pin, utf8("---\nname: evil\n---\n"));
    const online = await run();
    expect(byField(online, "agent")).toMatchObject({
      cache: "miss",
      verdict: { allowed: true },
      warning: expect.stringContaining("evicted"),
    });
    expect(log.ofKind("cache.event").some((e) => e.op === "corrupt" && e.sha256 === pin)).toBe(true);
    await cas.store.putBlob(pin, utf8("evil"));
    expect((await run({ offline: true })).error?.code).toBe("offline-miss");
  });
});

describe("every step is an event on the log (one log, many views)", () => {
  it("logs resolver.run start and done and one resolver.step per resource, with the tree and the verdicts", async () => {
    const { run, log } = setup("agent: agents/a.md\npolicy: policies/p.yaml\nvalidation_loop:\n  preflight_check: scripts/x.sh\n");
    const r = await run();
    const steps = log.ofKind("resolver.step");
    expect(steps.map((s) => s.field)).toEqual(r.resources.map((x) => x.field));
    expect(steps.every((s) => s.run === "r1" && (s.parent === null || s.parent === 0))).toBe(true);
    expect(log.ofKind("resolver.run").map((e) => e.phase)).toEqual(["start", "progress", "progress", "progress", "progress", "done"]);
    expect(log.ofKind("resolver.lint")).toEqual([expect.objectContaining({ code: "preflight-path-like", severity: "error" })]);
    expect(r.ok).toBe(true); // the lint is shown, not fatal
  });
});

import { describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import { createCas, createMemoryStore } from "../cas";
import { createEventLog } from "../log";
import {
  createMemoryLocalFiles,
  DEFAULT_LIMITS,
  type LocalFiles,
  type LockFile,
  pinOfLocal,
  type Resolution,
  type ResolveOptions,
  resolveHarness,
} from "./index";
import { createMemoryFetch, githubRepo, pinOf, type Route } from "./testing/memory-fetch";

// The rules on which this resolver agrees with the reference resolver, each named by
// its sentence. Deliberate differences are listed in src/resolver/README.md.

const C = "c".repeat(40);
const RAW = `https://raw.githubusercontent.com/org/lib/${C}`;
const TREE = `https://github.com/org/lib/tree/${C}`;
const ORG = { allowed_remote_resources: ["https://github.com/org/lib/", "https://raw.githubusercontent.com/org/lib/"] };
const AGENT = "---\nname: a\ndescription: d\n---\nbody\n";
const SKILL = "---\nname: s\ndescription: d\n---\nx\n";
const skill = (deps: string[] = []) =>
  `---\nname: s\ndescription: d\n${deps.length ? `dependencies:\n${deps.map((d) => `  - "${d}"`).join("\n")}\n` : ""}---\nx\n`;
const Z = "0".repeat(64);

function setup(harness: string, extraLocal: Record<string, string | Uint8Array> = {}, routes: Record<string, Route> = {}) {
  const local = createMemoryLocalFiles({
    "/repo/.fullsend/harness/h.yaml": harness,
    "/repo/.fullsend/agents/a.md": AGENT,
    "/repo/.fullsend/skills/s/SKILL.md": SKILL,
    "/repo/.fullsend/scripts/pre.sh": "#!/bin/sh\n",
    ...extraLocal,
  });
  const fetch = createMemoryFetch(routes);
  const log = createEventLog();
  const cas = createCas({ store: createMemoryStore(), log });
  const run = (over: Partial<ResolveOptions> = {}) =>
    resolveHarness({ harness: "/repo/.fullsend/harness/h.yaml", local, cas, fetch, log, orgConfig: ORG, runId: "r", ...over });
  return { local, fetch, cas, log, run };
}
const node = (r: Resolution, field: string) => r.resources.find((x) => x.field === field);

describe("the whole harness is validated before its first request", () => {
  it.each([
    ["a URL in pre_script", `pre_script: ${RAW}/x.sh#sha256=${Z}`, "pre_script", "executable-url"],
    [
      "a skill URL that is not a forge directory URL",
      `skills:\n  - https://raw.githubusercontent.com/org/lib/s#sha256=${Z}`,
      "skills[0]",
      "invalid-harness",
    ],
    ["a skill URL without a pin", `skills:\n  - ${TREE}/skills/s`, "skills[0]", "hash-missing"],
    ["a policy URL with a malformed pin", `policy: ${RAW}/p.yaml#sha256=abc`, "policy", "hash-missing"],
    ["a policy URL outside the allowlists", `policy: https://evil.example/p.yaml#sha256=${Z}`, "policy", "not-allowlisted"],
  ])("%s refuses the harness and the agent URL listed before it is never fetched", async (_, line, field, code) => {
    const { run, fetch } = setup(`agent: ${RAW}/a.md#sha256=${await pinOf(AGENT)}\n${line}\n`, {}, { [`${RAW}/a.md`]: AGENT });
    const r = await run();
    expect(r.ok).toBe(false);
    expect(node(r, field)?.verdict.code).toBe(code);
    expect(node(r, "agent")).toBeUndefined();
    expect(fetch.calls).toEqual([]);
  });
});

describe("api_servers[i].script is an executable field", () => {
  it.each([
    ["a URL there is executable-url", `${RAW}/srv.sh#sha256=${Z}`, false, "executable-url"],
    ["a local path there resolves like any script", "scripts/pre.sh", true, "served"],
  ])("%s", async (_, ref, allowed, code) => {
    const { run, fetch } = setup(`api_servers:\n  - name: api\n    script: ${ref}\n`);
    const r = await run();
    expect(node(r, "api_servers[0].script")?.verdict).toMatchObject({ allowed, code });
    expect(fetch.calls).toEqual([]);
    if (allowed) expect(r.harness).toMatchObject({ api_servers: [{ name: "api", script: "/repo/.fullsend/scripts/pre.sh" }] });
  });
});

describe("a skill URL must point to a directory inside the repository", () => {
  it.each([
    ["the repository root is refused", `${TREE}#sha256=${Z}`],
    ["the repository root with a trailing slash is refused", `${TREE}/#sha256=${Z}`],
  ])("%s, and nothing is listed", async (_, ref) => {
    const { run, fetch } = setup(`skills:\n  - ${ref}\n`);
    const r = await run();
    expect(node(r, "skills[0]")?.verdict).toMatchObject({
      code: "invalid-harness",
      reason: expect.stringContaining("must point to a directory inside the repo"),
    });
    expect(fetch.calls).toEqual([]);
  });
});

describe("only the scheme spelled https:// is https", () => {
  it.each([
    ["an upper-case HTTPS:// is not-https", "HTTPS://raw.githubusercontent.com/org/lib", false, "not-https"],
    ["a mixed-case Https:// is not-https", "Https://raw.githubusercontent.com/org/lib", false, "not-https"],
    ["a lower-case https:// is fetched", "https://raw.githubusercontent.com/org/lib", true, "served"],
  ])("%s", async (_, prefix, allowed, code) => {
    const pin = await pinOf(AGENT);
    const { run, fetch } = setup(`agent: ${prefix}/${C}/a.md#sha256=${pin}\n`, {}, { [`${RAW}/a.md`]: AGENT });
    const r = await run();
    expect(node(r, "agent")?.verdict).toMatchObject({ allowed, code });
    expect(fetch.calls.length).toBe(allowed ? 1 : 0);
  });
});

describe("base: composition concatenates skills, de-duplicated by basename, the child's winning", () => {
  it.each([
    ["the child adds to the base's skills", "skills:\n  - skills/t\n", ["skills/s", "skills/t"]],
    ["the child's entry with the same basename takes the base's place", "skills:\n  - other/s\n", ["other/s"]],
    ["a child without skills keeps the base's", "agent: agents/a.md\n", ["skills/s"]],
  ])("%s", async (_, child, expected) => {
    const { run } = setup(`base: harness/b.yaml\n${child}`, {
      "/repo/.fullsend/harness/b.yaml": "skills:\n  - skills/s\n",
      "/repo/.fullsend/skills/t/SKILL.md": SKILL,
      "/repo/.fullsend/other/s/SKILL.md": SKILL,
    });
    const r = await run();
    expect(r.error).toBeNull();
    expect(r.harness?.skills).toEqual(expected.map((p) => `/repo/.fullsend/${p}`));
  });

  it("a base's relative skill resolves against the base's origin, the child's against its own", async () => {
    const repo = await githubRepo("org", "lib", C, { "skills/a/SKILL.md": SKILL });
    const baseYaml = "skills:\n  - skills/a\n";
    const { run } = setup(
      `base: ${RAW}/harness/base.yaml#sha256=${await pinOf(baseYaml)}\nskills:\n  - skills/s\n`,
      {},
      {
        ...repo.routes,
        [`${RAW}/harness/base.yaml`]: baseYaml,
      },
    );
    const r = await run();
    expect(r.error).toBeNull();
    expect([node(r, "skills[0]")?.url, node(r, "skills[1]")?.path]).toEqual([`${TREE}/skills/a`, "/repo/.fullsend/skills/s"]);
  });
});

describe("a remote skill's relative dependencies resolve against its own directory URL, through the same allowlist", () => {
  const sibling = async (dep: (pins: { b: string; p: string }) => string, org = ORG, slash = "") => {
    const files = { "skills/b/SKILL.md": SKILL, "policies/p.yaml": "a: 1\n" } as Record<string, string>;
    const pins = { b: await (await githubRepo("org", "lib", C, files)).dirPin("skills/b"), p: await pinOf("a: 1\n") };
    files["skills/a/SKILL.md"] = skill([dep(pins)]);
    const repo = await githubRepo("org", "lib", C, files);
    const { run } = setup(`skills:\n  - ${TREE}/skills/a${slash}#sha256=${await repo.dirPin("skills/a")}\n`, {}, repo.routes);
    return node(await run({ orgConfig: org }), "skills[0].dependencies[0]");
  };
  it.each([
    ["a sibling skill is a directory under the same pinned tree", (p: { b: string }) => `b#sha256=${p.b}`, `${TREE}/skills/b`, "served"],
    [
      "a relative file is read from the same commit",
      (p: { p: string }) => `../policies/p.yaml#sha256=${p.p}`,
      `${RAW}/policies/p.yaml`,
      "served",
    ],
    ["a relative dependency without a pin is hash-missing", () => "b", null, "hash-missing"],
    ["one climbing out of the tree is path-outside-base", () => `../../../../x#sha256=${Z}`, null, "path-outside-base"],
    ["an absolute path is path-outside-base", () => `/etc/x#sha256=${Z}`, null, "path-outside-base"],
  ])("%s", async (_, dep, url, code) => {
    const res = await sibling(dep as (p: { b: string; p: string }) => string);
    expect(res?.verdict.code).toBe(code);
    if (url) expect(res?.url).toBe(url);
  });

  it("a sibling outside the allowlist is not-allowlisted", async () => {
    const res = await sibling((p) => `b#sha256=${p.b}`, { allowed_remote_resources: [`${TREE}/skills/a/`] }, "/");
    expect(res?.verdict.code).toBe("not-allowlisted");
  });
});

describe("a dependency shared by two skills (a diamond) is one node, resolved once", () => {
  it("two skills depending on one skill give one node for it and one fetch of its files", async () => {
    const files: Record<string, string> = { "skills/c/SKILL.md": SKILL };
    const cPin = await (await githubRepo("org", "lib", C, files)).dirPin("skills/c");
    files["skills/a/SKILL.md"] = skill([`${TREE}/skills/c#sha256=${cPin}`]);
    files["skills/b/SKILL.md"] = `${skill([`${TREE}/skills/c#sha256=${cPin}`])}b\n`;
    const repo = await githubRepo("org", "lib", C, files);
    const { run, fetch } = setup(
      `skills:\n  - ${TREE}/skills/a#sha256=${await repo.dirPin("skills/a")}\n  - ${TREE}/skills/b#sha256=${await repo.dirPin("skills/b")}\n`,
      {},
      repo.routes,
    );
    const r = await run();
    expect(r.error).toBeNull();
    expect(r.resources.filter((x) => x.url === `${TREE}/skills/c`).map((x) => x.field)).toEqual(["skills[0].dependencies[0]"]);
    expect(fetch.calls.filter((u) => u === repo.rawUrl("skills/c/SKILL.md"))).toHaveLength(1);
  });
});

describe("a skill directory falls back to its stale cache entry on a transient failure only", () => {
  const harness = "skills:\n  - skills/a\n";
  it.each([
    ["a connection failure serves the stale directory with a warning", "listing", "network-error", true, "served"],
    ["a failure reading one file serves the stale directory with a warning", "file", "network-error", true, "served"],
    ["a 404 still fails", "listing", { status: 404 }, false, "bad-status"],
    ["bytes that do not match the listing still fail", "file", "tampered\n", false, "hash-mismatch"],
  ] as const)("%s", async (_, which, route, allowed, code) => {
    const repo = await githubRepo("org", "lib", C, { "skills/a/SKILL.md": SKILL });
    const { run, fetch } = setup("", {}, { ...repo.routes, [`${RAW}/harness/h.yaml`]: harness });
    const ref = `${RAW}/harness/h.yaml#sha256=${await pinOf(harness)}`;
    expect((await run({ harness: ref })).error).toBeNull();
    const url = which === "listing" ? `https://api.github.com/repos/org/lib/git/trees/${C}?recursive=1` : repo.rawUrl("skills/a/SKILL.md");
    fetch.routes[url] = route as Route;
    const again = node(await run({ harness: ref }), "skills[0]");
    expect(again?.verdict).toMatchObject({ allowed, code });
    if (allowed) expect(again).toMatchObject({ cache: "stale", warning: expect.stringContaining("stale cache used") });
  });
});

describe("a name the host's guarded fetch refuses is that refusal, never a stale-cache fallback", () => {
  it("a private-address refusal from the guard fails the skill directory even with a stale entry cached", async () => {
    const harness = "skills:\n  - skills/a\n";
    const repo = await githubRepo("org", "lib", C, { "skills/a/SKILL.md": SKILL });
    const { run } = setup("", {}, { ...repo.routes, [`${RAW}/harness/h.yaml`]: harness });
    const ref = `${RAW}/harness/h.yaml#sha256=${await pinOf(harness)}`;
    expect((await run({ harness: ref })).error).toBeNull();
    const verdict = { allowed: false, code: "private-address", reason: "api.github.com resolved to 10.0.0.1 (private)", by: "proxy" };
    const guarded = createMemoryFetch({ [`${RAW}/harness/h.yaml`]: harness });
    const refusing: typeof guarded = Object.assign(
      async (url: string, init: RequestInit) => {
        if (url.startsWith("https://api.github.com/")) throw Object.assign(new Error(verdict.reason), { name: "FetchRefused", verdict });
        return guarded(url, init);
      },
      { calls: guarded.calls, routes: guarded.routes },
    );
    const again = node(await run({ harness: ref, fetch: refusing }), "skills[0]");
    expect(again?.verdict.code).toBe("private-address");
  });
});

describe("a URL with an explicit port other than 443 is refused unless the org config lists that port", () => {
  const withPort = "https://raw.githubusercontent.com:8443/org/lib";
  it.each([
    ["port 8443 not listed is port-not-allowed", ORG.allowed_remote_resources, `${withPort}/a.md`, "port-not-allowed"],
    ["port 8443 listed by an org entry is fetched", [`${withPort}/`], `${withPort}/a.md`, "served"],
    [
      "an explicit :443 is not a port refusal",
      ["https://raw.githubusercontent.com:443/org/lib/"],
      "https://raw.githubusercontent.com:443/org/lib/a.md",
      "served",
    ],
  ])("%s", async (_, entries, url, code) => {
    const { run, fetch } = setup(`agent: ${url}#sha256=${await pinOf(AGENT)}\n`, {}, { [url]: AGENT });
    const r = await run({ orgConfig: { allowed_remote_resources: entries } });
    expect(node(r, "agent")?.verdict.code).toBe(code);
    if (code === "port-not-allowed") expect(fetch.calls).toEqual([]);
  });
});

describe("local tree pins skip .git/, and an empty directory cannot be pinned", () => {
  const dirs = (tree: Record<string, string[] | string>): LocalFiles => ({
    read: async (p) => (typeof tree[p] === "string" ? utf8(tree[p] as string) : null),
    list: async (d) => {
      const children = tree[d];
      if (!Array.isArray(children)) return null;
      return children.map((name) => ({ name, kind: Array.isArray(tree[`${d}/${name}`]) ? "directory" : "file" }));
    },
  });
  it.each([
    [
      "a .git directory is left out of the tree hash",
      { "/d": ["SKILL.md", ".git"], "/d/SKILL.md": SKILL, "/d/.git": ["HEAD"], "/d/.git/HEAD": "ref" },
      "same",
    ],
    [
      "a nested .git directory is left out too",
      { "/d": ["SKILL.md", "x"], "/d/SKILL.md": SKILL, "/d/x": [".git"], "/d/x/.git": ["HEAD"], "/d/x/.git/HEAD": "r" },
      "same",
    ],
    ["an empty directory is refused", { "/d": [] }, "empty"],
    ["a directory holding only .git is refused", { "/d": [".git"], "/d/.git": ["HEAD"], "/d/.git/HEAD": "r" }, "empty"],
  ])("%s", async (_, tree, expected) => {
    const plain = await pinOfLocal(dirs({ "/d": ["SKILL.md"], "/d/SKILL.md": SKILL }), "/d", DEFAULT_LIMITS);
    const pinned = await pinOfLocal(dirs(tree as Record<string, string[] | string>), "/d", DEFAULT_LIMITS);
    if (expected === "same") expect(pinned).toEqual(plain);
    else
      expect(pinned).toMatchObject({
        ok: false,
        verdict: { code: "unparsable", reason: expect.stringContaining("empty directory cannot be pinned") },
      });
  });
});

describe("breadth is counted per resource, depth is configurable", () => {
  it.each([
    ["50 dependencies of one resource are allowed", 50, true],
    ["51 dependencies of one resource are breadth-exceeded", 51, false],
  ])("%s", async (_, count, ok) => {
    const deps = Array.from({ length: count }, (_, i) => `deps/d${i}.md`);
    const extra: Record<string, string> = { "/repo/.fullsend/skills/m/SKILL.md": skill(deps) };
    for (const d of deps) extra[`/repo/.fullsend/${d}`] = AGENT;
    const { run } = setup("skills:\n  - skills/m\n", extra);
    const r = await run();
    expect(r.ok).toBe(ok);
    if (!ok) expect(r.error?.code).toBe("breadth-exceeded");
  });

  it("a maxDepth limit refuses the first level below it (the CLI's --max-depth)", async () => {
    const { run } = setup("skills:\n  - skills/a\n", {
      "/repo/.fullsend/skills/a/SKILL.md": skill(["skills/b"]),
      "/repo/.fullsend/skills/b/SKILL.md": skill(["skills/c"]),
      "/repo/.fullsend/skills/c/SKILL.md": SKILL,
    });
    expect((await run()).ok).toBe(true);
    const r = await run({ limits: { maxDepth: 2 } });
    expect(node(r, "skills[0].dependencies[0].dependencies[0]")?.verdict.code).toBe("depth-exceeded");
  });
});

describe("lock files: run prefers the lock's pins", () => {
  const lockOf = (url: string, sha256: string): LockFile => ({
    version: 1,
    generated_at: "2026-01-01T00:00:00Z",
    harnesses: {
      h: {
        source: "harness/h.yaml",
        sha256: Z,
        resolved_at: "2026-01-01T00:00:00Z",
        dependencies: [{ field: "agent", url, sha256, type: "file", fetched_at: "2026-01-01T00:00:00Z" }],
      },
    },
  });

  it("a locked dependency no longer under the allowlist fails, saying to run lock again", async () => {
    const url = "https://other.example/a.md";
    const { run, fetch } = setup(`agent: ${url}#sha256=${await pinOf(AGENT)}\n`);
    const r = await run({ lock: lockOf(url, await pinOf(AGENT)) });
    expect(node(r, "agent")?.verdict).toMatchObject({
      code: "not-allowlisted",
      reason: expect.stringContaining("no longer in allowed_remote_resources — run lock again"),
    });
    expect(fetch.calls).toEqual([]);
  });

  const NEW = "---\nname: a\ndescription: new\n---\nbody\n";
  it.each([
    ["the lock's bytes in the cache are served under the lock's pin", true, AGENT],
    ["bytes matching the harness's own pin are still accepted", false, NEW],
  ])("a pinned reference whose pin differs from the lock warns lock-stale; %s", async (_, warmLock, served) => {
    const url = `${RAW}/a.md`;
    const { run, cas } = setup(`agent: ${url}#sha256=${await pinOf(NEW)}\n`, {}, { [url]: NEW });
    if (warmLock) await cas.put(utf8(AGENT));
    const r = await run({ lock: lockOf(url, await pinOf(AGENT)) });
    expect(node(r, "agent")).toMatchObject({ verdict: { allowed: true }, sha256: await pinOf(served) });
    expect(r.lints).toContainEqual(expect.objectContaining({ field: "agent", code: "lock-stale", severity: "warning" }));
  });

  it("bytes matching neither the lock nor the harness pin are hash-mismatch", async () => {
    const url = `${RAW}/a.md`;
    const { run } = setup(`agent: ${url}#sha256=${await pinOf(NEW)}\n`, {}, { [url]: "---\nname: x\n---\n" });
    const r = await run({ lock: lockOf(url, await pinOf(AGENT)) });
    expect(node(r, "agent")?.verdict.code).toBe("hash-mismatch");
  });
});

describe("allow_runtime_fetch and max_runtime_fetches are validated before any fetch", () => {
  const entries = "allowed_remote_resources:\n  - https://github.com/org/lib/\n";
  it.each([
    ["allow_runtime_fetch with an allowed_remote_resources entry is accepted", `allow_runtime_fetch: true\n${entries}`, null],
    ["allow_runtime_fetch without any allowed_remote_resources entry is refused", "allow_runtime_fetch: true\n", "allow_runtime_fetch"],
    [
      "max_runtime_fetches 1000 with allow_runtime_fetch is accepted",
      `allow_runtime_fetch: true\nmax_runtime_fetches: 1000\n${entries}`,
      null,
    ],
    ["max_runtime_fetches 0 is refused", `allow_runtime_fetch: true\nmax_runtime_fetches: 0\n${entries}`, "max_runtime_fetches"],
    ["max_runtime_fetches 1001 is refused", `allow_runtime_fetch: true\nmax_runtime_fetches: 1001\n${entries}`, "max_runtime_fetches"],
    ["max_runtime_fetches without allow_runtime_fetch is refused", `max_runtime_fetches: 5\n${entries}`, "max_runtime_fetches"],
  ])("%s", async (_, yaml, field) => {
    const { run, fetch } = setup(`agent: ${RAW}/a.md#sha256=${await pinOf(AGENT)}\n${yaml}`, {}, { [`${RAW}/a.md`]: AGENT });
    const r = await run();
    expect(r.ok).toBe(field === null);
    if (field !== null) {
      expect(r.error).toMatchObject({ code: "invalid-harness", reason: expect.stringContaining(field) });
      expect(fetch.calls).toEqual([]);
    }
  });
});

describe("skills named in a harness follow the registry skill file rules", () => {
  const big = "x".repeat(256 * 1024 + 1);
  const scripts = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`scripts/s${i}.sh`, "#!/bin/sh\n"]));
  const cases: [string, Record<string, string>, string | null][] = [
    ["SKILL.md and files directly under scripts/ are admitted", { "scripts/run.sh": "#!/bin/sh\n" }, null],
    ["a references/ directory is refused", { "references/r.md": "r" }, "payload-path-refused"],
    ["a directory nested under scripts/ is refused", { "scripts/sub/x.sh": "x" }, "payload-path-refused"],
    ["a dotfile at the root is refused", { ".env": "X=1" }, "payload-path-refused"],
    ["a script whose name starts with a dot is refused", { "scripts/.hidden": "x" }, "payload-path-refused"],
    ["more scripts than the count cap is too-large", scripts(17), "too-large"],
    ["a file over the size cap is too-large", { "scripts/big.sh": big }, "too-large"],
  ];

  it.each(cases)("local: %s", async (_, extra, code) => {
    const files: Record<string, string> = {};
    for (const [p, t] of Object.entries(extra)) files[`/repo/.fullsend/skills/s/${p}`] = t;
    const { run } = setup("skills:\n  - skills/s\n", files);
    expect(node(await run(), "skills[0]")?.verdict.code).toBe(code ?? "served");
  });

  it.each(cases)("remote: %s, refused on the listing before any file is fetched", async (_, extra, code) => {
    const files: Record<string, string> = { "skills/s/SKILL.md": SKILL };
    for (const [p, t] of Object.entries(extra)) files[`skills/s/${p}`] = t;
    const repo = await githubRepo("org", "lib", C, files);
    const { run, fetch } = setup(`skills:\n  - ${TREE}/skills/s#sha256=${await repo.dirPin("skills/s")}\n`, {}, repo.routes);
    expect(node(await run(), "skills[0]")?.verdict.code).toBe(code ?? "served");
    if (code !== null) expect(fetch.calls.filter((u) => u.startsWith("https://raw."))).toEqual([]);
  });

  it.each([
    ["a SKILL.md that is not UTF-8 is unparsable", "SKILL.md", new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe])],
    ["a script that is not UTF-8 is unparsable", "scripts/x.sh", new Uint8Array([0xc3, 0x28])],
    ["an empty SKILL.md is unparsable", "SKILL.md", new Uint8Array(0)],
  ])("text rules: %s", async (_, path, bytes) => {
    const { run } = setup("skills:\n  - skills/s\n", { [`/repo/.fullsend/skills/s/${path}`]: bytes });
    expect(node(await run(), "skills[0]")?.verdict.code).toBe("unparsable");
  });

  it("a .git directory in a local skill is left out with the reason on its step", async () => {
    const { run, log } = setup("skills:\n  - skills/s\n", { "/repo/.fullsend/skills/s/.git/HEAD": "ref: x\n" });
    const r = await run();
    expect(node(r, "skills[0]")).toMatchObject({ verdict: { allowed: true }, warning: expect.stringContaining(".git/") });
    expect(node(r, "skills[0]")?.files?.map((f) => f.path)).toEqual(["SKILL.md"]);
    expect(log.ofKind("resolver.step").find((e) => e.field === "skills[0]")?.warning).toContain(".git/");
  });
});

import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSample } from "../../resolver/testing/sample";

const REPO = resolve(import.meta.dirname, "../../..");
const SAMPLES = join(REPO, "public/samples");
const FIXTURES = join(SAMPLES, "fixtures");
let cache = "";

const jsonLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function tab(...args: string[]): Promise<{ code: number; lines: Record<string, unknown>[]; stderr: string; stdout: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)("node", ["bin/tab.mjs", ...args], { cwd: REPO });
    return { code: 0, stdout, stderr, lines: jsonLines(stdout) };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr, lines: jsonLines(e.stdout) };
  }
}

beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), "tab-cli-cas-"));
});
afterAll(async () => {
  await rm(cache, { recursive: true, force: true });
});

describe("npx tab resolve", () => {
  it("resolves the sample harness from recordings: one JSON line per resource, exit 0", async () => {
    const out = await tab("resolve", join(SAMPLES, ".fullsend/harness/demo.yaml"), "--fixtures", FIXTURES, "--cache", cache);
    expect(out.code).toBe(0);
    const skill = out.lines.find((l) => l.field === "skills[1]");
    expect(skill).toMatchObject({
      kind: "url",
      cache: "miss",
      verdict: "allowed",
      code: "served",
      sha256: (await buildSample()).pins.rustLint,
    });
    for (const line of out.lines)
      expect(Object.keys(line)).toEqual(expect.arrayContaining(["field", "ref", "kind", "sha256", "cache", "verdict", "code", "reason"]));
  });

  it("offline after that run, every remote resource is a cache hit (the same cache directory)", async () => {
    const out = await tab("resolve", join(SAMPLES, ".fullsend/harness/demo.yaml"), "--offline", "--cache", cache);
    expect(out.code).toBe(0);
    expect(out.lines.filter((l) => l.kind === "url").map((l) => l.cache)).toEqual(["hit", "hit", "hit"]);
  });

  it("offline with an empty cache exits 1 and lists every missing resource in one error", async () => {
    const empty = await mkdtemp(join(tmpdir(), "tab-cli-empty-"));
    const out = await tab("resolve", join(SAMPLES, ".fullsend/harness/demo.yaml"), "--offline", "--cache", empty);
    await rm(empty, { recursive: true, force: true });
    expect(out.code).toBe(1);
    expect(out.lines.filter((l) => l.code === "offline-miss").map((l) => l.field)).toEqual(["policy", "skills[1]"]);
    expect(out.stderr).toMatch(/offline-miss: offline, and 2 resource\(s\) are not in the cache/);
  });

  it("the refused sample exits 1 with each refusal coded, and prints the path-like preflight_check lint as a line", async () => {
    const out = await tab("resolve", join(SAMPLES, ".fullsend/harness/refused.yaml"), "--fixtures", FIXTURES, "--cache", cache);
    expect(out.code).toBe(1);
    const codes = Object.fromEntries(out.lines.filter((l) => l.verdict === "refused").map((l) => [l.field, l.code]));
    expect(codes).toEqual({
      agent: "hash-missing",
      policy: "path-outside-base",
      "skills[0]": "not-allowlisted",
      pre_script: "executable-url",
    });
    expect(out.lines).toContainEqual(
      expect.objectContaining({ field: "validation_loop.preflight_check", severity: "error", code: "preflight-path-like" }),
    );
  });

  it("resolves a harness given by pinned URL from recordings", async () => {
    const sample = await buildSample();
    const out = await tab(
      "resolve",
      sample.remoteHarnessUrl,
      "--fixtures",
      FIXTURES,
      "--cache",
      cache,
      "--org-config",
      join(SAMPLES, ".fullsend/config.yaml"),
    );
    expect(out.code).toBe(0);
    expect(out.lines[0]).toMatchObject({ field: "harness", kind: "url", sha256: sample.pins.reviewHarness });
  });

  it("a usage error exits 64", async () => {
    expect((await tab("resolve")).code).toBe(64);
  });
});

describe("npx tab resolve --allow-prefix: the org allowlist from the command line, checked as the page's editor checks it", () => {
  const LIBRARY = ["https://raw.githubusercontent.com/example-org/agent-library/", "https://github.com/example-org/agent-library/"];
  const resolveUrl = async (...flags: string[]) =>
    tab("resolve", (await buildSample()).remoteHarnessUrl, "--fixtures", FIXTURES, "--cache", cache, ...flags);

  it("without an org allowlist, a pinned harness URL is refused not-allowlisted", async () => {
    const out = await resolveUrl();
    expect(out.code).toBe(1);
    expect(out.lines[0]).toMatchObject({ field: "harness", verdict: "refused", code: "not-allowlisted" });
  });

  it("with its prefixes allowed, the same harness resolves", async () => {
    const out = await resolveUrl(...LIBRARY.flatMap((p) => ["--allow-prefix", p]));
    expect(out.code).toBe(0);
    expect(out.lines[0]).toMatchObject({ field: "harness", verdict: "allowed", sha256: (await buildSample()).pins.reviewHarness });
  });

  it.each([
    ["a path-confusion spelling", "https://raw.githubusercontent.com/example-org/agent-library/../../x/", "not in normal form"],
    ["a prefix without its trailing slash", "https://raw.githubusercontent.com/example-org/agent-library", 'does not end in "/"'],
    ["plain http", "http://raw.githubusercontent.com/example-org/", "only https://"],
  ])("%s is a usage error naming the reason, and nothing is resolved", async (_, prefix, why) => {
    const out = await resolveUrl("--allow-prefix", prefix);
    expect(out.code).toBe(64);
    expect(out.stderr).toContain(why);
    expect(out.lines).toEqual([]);
  });
});

describe("npx tab resolve shows each rule the resolver shares with the reference, from recordings", () => {
  const raw = async () => `https://raw.githubusercontent.com/example-org/agent-library/${(await buildSample()).commit}`;
  const policy = async () => `${await raw()}/policies/rust-sandbox.yaml#sha256=${(await buildSample()).pins.policy}`;
  /** A .fullsend with the sample org config and one harness, resolved against the sample's recordings. */
  async function resolveYaml(yaml: string, ...flags: string[]) {
    const dir = await mkdtemp(join(tmpdir(), "tab-cli-rules-"));
    await mkdir(join(dir, "harness"));
    await copyFile(join(SAMPLES, ".fullsend/config.yaml"), join(dir, "config.yaml"));
    await writeFile(join(dir, "harness/h.yaml"), yaml);
    const out = await tab("resolve", join(dir, "harness/h.yaml"), "--fixtures", FIXTURES, "--cache", cache, ...flags);
    await rm(dir, { recursive: true, force: true });
    return out;
  }

  it.each([
    [
      "a URL in api_servers[i].script is executable-url, before the policy listed first is fetched",
      async () => `policy: ${await policy()}\napi_servers:\n  - script: ${await raw()}/s.sh#sha256=${"0".repeat(64)}\n`,
      "api_servers[0].script",
      "executable-url",
    ],
    [
      "an upper-case HTTPS:// is not-https",
      async () => `policy: ${(await policy()).replace("https://", "HTTPS://")}\n`,
      "policy",
      "not-https",
    ],
    [
      "an explicit port the org config does not list is port-not-allowed",
      async () => `policy: ${(await policy()).replace("raw.githubusercontent.com", "raw.githubusercontent.com:8443")}\n`,
      "policy",
      "port-not-allowed",
    ],
    [
      "a skill URL naming the repository root is refused",
      async () =>
        `skills:\n  - https://github.com/example-org/agent-library/tree/${(await buildSample()).commit}#sha256=${"0".repeat(64)}\n`,
      "skills[0]",
      "invalid-harness",
    ],
    [
      "allow_runtime_fetch without an allowed_remote_resources entry is refused",
      async () => `policy: ${await policy()}\nallow_runtime_fetch: true\n`,
      "allow_runtime_fetch",
      "invalid-harness",
    ],
  ])("%s", async (_, yaml, field, code) => {
    const out = await resolveYaml(await yaml());
    expect(out.code).toBe(1);
    expect(out.lines.find((l) => l.field === field)).toMatchObject({ verdict: "refused", code });
    expect(out.lines.find((l) => l.field === "policy" && l.verdict === "allowed")).toBeUndefined();
  });

  it.each([
    ["--max-depth 1 refuses the sample skill's dependency", ["--max-depth", "1"], 1],
    ["--max-depth 2 resolves it", ["--max-depth", "2"], 0],
    ["--max-depth 0 is a usage error", ["--max-depth", "0"], 64],
    ["--max-depth x is a usage error", ["--max-depth", "x"], 64],
  ])("%s", async (_, flags, code) => {
    const out = await tab("resolve", join(SAMPLES, ".fullsend/harness/demo.yaml"), "--fixtures", FIXTURES, "--cache", cache, ...flags);
    expect(out.code).toBe(code);
    if (code === 1) expect(out.lines.find((l) => l.field === "skills[1].dependencies[0]")?.code).toBe("depth-exceeded");
  });
});

describe("npx tab pin", () => {
  it("prints the tree hash a directory reference must carry, equal to what resolve computes", async () => {
    const out = await tab("pin", join(SAMPLES, ".fullsend/skills/hello"));
    const resolved = await tab("resolve", join(SAMPLES, ".fullsend/harness/demo.yaml"), "--offline", "--cache", cache);
    expect(out.code).toBe(0);
    expect(out.stdout.trim()).toBe(resolved.lines.find((l) => l.field === "skills[0]")?.sha256);
  });

  it("prints a file's sha256", async () => {
    const sample = await buildSample();
    const out = await tab(
      "pin",
      join(FIXTURES, `raw.githubusercontent.com/example-org/agent-library/${sample.commit}/policies/rust-sandbox.yaml`),
    );
    expect(out.stdout.trim()).toBe(sample.pins.policy);
  });

  it("a missing path exits 1", async () => {
    expect((await tab("pin", join(SAMPLES, "no-such-file"))).code).toBe(1);
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands holding literal ${VAR} references.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../bytes";
import { createCas, createMemoryStore } from "../cas";
import { createMemoryLocalFiles, type Resolution, resolveHarness } from "../resolver";
import type { AttachedSkill } from "../skills";
import { RUNNER_DEMO_FILES, RUNNER_DEMO_HARNESS, RUNNER_DEMO_REPO, RUNNER_DEMO_STEPS } from "./demo";
import {
  buildRunPlan,
  DEFAULT_STEPS,
  deliveredFilePath,
  fieldSlug,
  GUEST_HOST_ENV,
  planPreflight,
  type RunRequest,
  stepsFromHarness,
} from "./plan";
import { AgentStep } from "./verbs";

const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("the runner gets an already-checked preflight command", () => {
  const env = { ...GUEST_HOST_ENV, GH_TOKEN: SECRET, PYTHON: "python3" };

  it("expands allowlisted references and hands the same allowlisted environment to sh -c, never a credential", () => {
    const plan = planPreflight('test -d "${HOME}" && command -v curl', env);
    expect(plan).toEqual({
      kind: "command",
      command: 'test -d "/root" && command -v curl',
      references: ["HOME"],
      env: GUEST_HOST_ENV,
    });
  });

  it("keeps a credential out of the child environment even when an allowlist names it", () => {
    const plan = planPreflight("true", env, ["PATH", "GH_TOKEN"]);
    expect(plan).toMatchObject({ kind: "command", env: { PATH: GUEST_HOST_ENV.PATH } });
    expect(plan.kind === "command" && Object.keys(plan.env)).toEqual(["PATH"]);
  });

  it.each([
    ["a ${GH_TOKEN} reference, refused before anything is expanded", "curl -H 'Authorization: token ${GH_TOKEN}' https://api.github.com/"],
    ["a reference outside the allowlist", "${PYTHON} -c 'import json'"],
    ["a ${VAR:-default} form", "echo ${HOME:-/}"],
  ])("refuses %s (env-not-allowed) without the secret in the reason", (_, command) => {
    const plan = planPreflight(command, env);
    expect(plan).toMatchObject({ kind: "refused", verdict: { allowed: false, code: "env-not-allowed" } });
    expect(JSON.stringify(plan)).not.toContain(SECRET);
  });

  it.each([
    ["no preflight_check", undefined],
    ["an empty preflight_check", "  "],
  ])("plans nothing for %s", (_, command) => {
    expect(planPreflight(command, env)).toEqual({ kind: "none" });
  });
});

describe("delivery paths: every resolved file lands under files/<field>/", () => {
  it.each([
    ["a top-level field", "agent", "agent"],
    ["an indexed field", "skills[1]", "skills-1"],
    ["a nested field", "validation_loop.script", "validation_loop.script"],
    ["a dependency of a skill", "skills[1].dependencies[0]", "skills-1.dependencies-0"],
  ])("names %s as a plain directory", (_, field, slug) => {
    expect(fieldSlug(field)).toBe(slug);
  });

  it.each([
    ["a local file keeps its name", { field: "agent", path: "/x/.fullsend/agents/demo.md", url: null }, "files/agent/demo.md"],
    [
      "a URL loses its pin and query",
      { field: "policy", path: null, url: "https://h.example/p/rust.yaml?x=1#sha256=ab" },
      "files/policy/rust.yaml",
    ],
    ["a name climbing out is neutralised", { field: "agent", path: "/x/..", url: null }, "files/agent/_"],
  ])("%s", (_, resource, path) => {
    expect(deliveredFilePath(resource)).toBe(path);
  });
});

describe("the agent's steps come from the request, the harness, or a default", () => {
  it.each([
    ["the harness's agent_steps list", { agent_steps: ["list .", "done ok"] }, null, ["list .", "done ok"]],
    [
      "a ```tab-agent block in agent_input",
      {},
      "Do this:\n```tab-agent\nlist .\n# a comment\nread README.md\n```\n",
      ["list .", "read README.md"],
    ],
    ["nothing at all", {}, "Say hello.", null],
  ])("reads %s", (_, harness, input, steps) => {
    expect(stepsFromHarness(harness, input)).toEqual(steps);
  });

  it.each([
    ["an unknown verb", "rm -rf /"],
    ["a second line smuggled in", "list .\nrun curl evil.example"],
    ["a verb glued to its argument", "list."],
  ])("refuses %s", (_, step) => {
    expect(AgentStep.safeParse(step).success).toBe(false);
  });

  it.each(RUNNER_DEMO_STEPS.map((s) => [s]))("accepts the demo step %s", (step) => {
    expect(AgentStep.safeParse(step).success).toBe(true);
  });
});

async function demoRequest(overrides: Partial<RunRequest> = {}): Promise<RunRequest> {
  const cas = createCas({ store: createMemoryStore() });
  const resolution: Resolution = await resolveHarness({
    cas,
    harness: RUNNER_DEMO_HARNESS,
    local: createMemoryLocalFiles(RUNNER_DEMO_FILES),
  });
  return {
    id: "run-abc123",
    resolution,
    read: async (sha256) => {
      const got = await cas.get(sha256);
      return got.status === "hit" ? got.bytes : null;
    },
    repo: RUNNER_DEMO_REPO,
    env: { ...GUEST_HOST_ENV, GH_TOKEN: SECRET },
    ...overrides,
  };
}

describe("buildRunPlan: what the page writes to /mnt/tab/run/<id>/ (guest/runner/README.md)", () => {
  it("delivers the resolved files, the plan and the repo, with a manifest the guest checks with sha256sum -c", async () => {
    const result = await buildRunPlan(await demoRequest());
    if (!result.ok) throw new Error(result.reason);
    const { plan } = result;
    const paths = plan.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "files/agent/demo.md",
        "files/skills-0/SKILL.md",
        "files/skills-0/scripts/hello.sh",
        "files/validation_loop.script/validate.sh",
        "plan/preflight",
        "plan/preflight.env",
        "plan/steps",
        "repo/opencode.json",
        "repo/.opencode/plugin/takeover.js",
        "repo/AGENTS.md",
        "harness.json",
        "manifest.sha256",
      ]),
    );
    const manifest = decode(plan.files.find((f) => f.path === "manifest.sha256")!.bytes);
    for (const file of plan.files.filter((f) => f.path !== "manifest.sha256")) {
      expect(file.sha256).toBe(await sha256Hex(file.bytes));
      expect(manifest).toContain(`${file.sha256}  ${file.path}\n`);
    }
    expect(plan.command).toBe("sh /mnt/tab/bin/tab-run /mnt/tab/run/run-abc123");
    expect(plan.workspace).toBe("/tmp/work-run-abc123");
    expect(plan.stepsSource).toBe("harness");
    expect(plan.steps).toEqual(RUNNER_DEMO_STEPS);
  });

  it("rewrites the harness's resolved fields to the delivered paths in harness.json", async () => {
    const result = await buildRunPlan(await demoRequest());
    if (!result.ok) throw new Error(result.reason);
    const record = JSON.parse(decode(result.plan.files.find((f) => f.path === "harness.json")!.bytes));
    expect(record.harness.agent).toBe("/mnt/tab/run/run-abc123/files/agent/demo.md");
    expect(record.harness.skills).toEqual(["/mnt/tab/run/run-abc123/files/skills-0"]);
    expect(record.harness.validation_loop.script).toBe("/mnt/tab/run/run-abc123/files/validation_loop.script/validate.sh");
  });

  it("writes the expanded preflight and its allowlisted environment; no credential reaches any delivered file", async () => {
    const result = await buildRunPlan(await demoRequest());
    if (!result.ok) throw new Error(result.reason);
    const text = (path: string) => decode(result.plan.files.find((f) => f.path === path)!.bytes);
    expect(text("plan/preflight")).toBe('command -v curl >/dev/null && test -d "/root"');
    expect(text("plan/preflight.env")).toContain("PATH=/usr/sbin:/usr/bin:/sbin:/bin\n");
    for (const file of result.plan.files) expect(decode(file.bytes)).not.toContain(SECRET);
  });

  it("delivers a refused preflight as plan/preflight.refused, redacted, and no command", async () => {
    const result = await buildRunPlan(await demoRequest({ preflight: "echo ${GH_TOKEN}" }));
    if (!result.ok) throw new Error(result.reason);
    const paths = result.plan.files.map((f) => f.path);
    expect(paths).toContain("plan/preflight.refused");
    expect(paths).not.toContain("plan/preflight");
    expect(result.plan.preflight).toMatchObject({ kind: "refused", verdict: { code: "env-not-allowed" } });
  });

  it("uses request steps before the harness's, and the default when there are none", async () => {
    const request = await demoRequest({ steps: ["list ."] });
    const own = await buildRunPlan(request);
    expect(own.ok && own.plan.stepsSource).toBe("request");
    const bare = structuredClone(request.resolution);
    delete (bare.harness as Record<string, unknown>).agent_steps;
    const fallback = await buildRunPlan({ ...request, resolution: bare, steps: undefined });
    expect(fallback.ok && fallback.plan.steps).toEqual(DEFAULT_STEPS);
  });

  it.each([
    ["a workspace outside /tmp", { workspace: "/root/work" }, "workspace"],
    ["a workspace climbing out of /tmp", { workspace: "/tmp/../etc" }, "workspace"],
    ["a repo path climbing out", { repo: { "../escape": "x" } }, "repo file"],
    ["a bad step", { steps: ["format c:"] }, "step 1"],
    ["a run id that is not run-…", { id: "../../etc" }, "run id"],
  ])("refuses %s", async (_, overrides, reason) => {
    const result = await buildRunPlan(await demoRequest(overrides));
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining(reason) });
  });
});

describe("skills attached by handle reach the run", () => {
  const skill = (scripts: { name: string; text: string }[], held = 0): AttachedSkill => {
    const enc = new TextEncoder();
    return {
      record: {
        handle: "skill:0a1b",
        discoveryId: "acme/skills/pdf",
        method: "git-commit-sha",
        sourceUrl: "https://api.github.com/repos/acme/skills/git/trees/x",
        commitSha: "x",
        indexDigest: null,
        pin: "acme/skills/pdf@x",
        skillMdSha256: "0".repeat(64),
        skillMdBytes: 4,
        scripts: Array.from({ length: Math.max(held, scripts.length) }, (_, i) => ({
          path: `scripts/s${i}.sh`,
          sha256: "1".repeat(64),
          bytes: 1,
        })),
        resolvedAt: null,
        receivedAt: "2026-12-02T00:00:00Z",
      },
      context: enc.encode('<skill_context source="handle:skill:0a1b">\n# pdf\n</skill_context>\n'),
      activation: {
        handle: "skill:0a1b",
        discoveryId: "acme/skills/pdf",
        pin: "acme/skills/pdf@x",
        contextSha256: "2".repeat(64),
        skillMdSha256: "0".repeat(64),
      },
      scripts: scripts.map((s) => ({ name: s.name, bytes: enc.encode(s.text), sha256: "3".repeat(64) })),
      scriptsVerdict: { allowed: scripts.length > 0, code: scripts.length > 0 ? "served" : "not-allowlisted", reason: "", by: "skills" },
    };
  };

  it("delivers the wrapped text and names the handle, pin and digest in plan/skills and harness.json", async () => {
    const result = await buildRunPlan({ ...(await demoRequest()), skills: [skill([], 2)] });
    if (!result.ok) throw new Error(result.reason);
    const paths = result.plan.files.map((f) => f.path);
    expect(paths).toContain("skills/skill-0a1b/SKILL.md");
    expect(paths.some((p) => p.startsWith("skills/skill-0a1b/scripts/"))).toBe(false);
    const text = (path: string) => decode(result.plan.files.find((f) => f.path === path)!.bytes);
    expect(text("plan/skills")).toBe(`skill-0a1b skill:0a1b acme/skills/pdf@x ${"2".repeat(64)} held\n`);
    expect(JSON.parse(text("harness.json")).skills[0]).toMatchObject({ handle: "skill:0a1b", pin: "acme/skills/pdf@x", scripts: [] });
  });

  it("delivers scripts only when the attachment carries them (the operator allowed the pin)", async () => {
    const result = await buildRunPlan({ ...(await demoRequest()), skills: [skill([{ name: "s0.sh", text: "echo ok\n" }])] });
    if (!result.ok) throw new Error(result.reason);
    expect(result.plan.files.map((f) => f.path)).toContain("skills/skill-0a1b/scripts/s0.sh");
    expect(decode(result.plan.files.find((f) => f.path === "plan/skills")!.bytes)).toMatch(/ allowed\n$/);
  });

  it("refuses a script name that is not plain", async () => {
    const result = await buildRunPlan({ ...(await demoRequest()), skills: [skill([{ name: "../evil", text: "x" }])] });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining("not a plain name") });
  });

  it("accepts the skill and skill-script verbs as agent steps", () => {
    expect(AgentStep.safeParse("skill skill:0a1b").success).toBe(true);
    expect(AgentStep.safeParse("skill-script skill:0a1b s0.sh --check").success).toBe(true);
  });
});

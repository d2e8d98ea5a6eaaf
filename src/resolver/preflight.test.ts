// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands holding literal ${VAR} references.
import { describe, expect, it } from "vitest";
import { expandPreflight, lintPreflight, redact } from "./index";

describe("the path-like preflight_check lint (a hint, never fatal)", () => {
  it.each([
    ["the incident's bare relative script path", "scripts/common-preflight.sh"],
    ["a dot-slash script", "./check.py"],
    ["an absolute script path", "/opt/probe.rb"],
    ["a bare script name", "probe.js"],
  ])("flags %s at severity error", (_, command) => {
    expect(lintPreflight("validation_loop.preflight_check", command)).toEqual([
      expect.objectContaining({ severity: "error", code: "preflight-path-like", field: "validation_loop.preflight_check" }),
    ]);
  });

  it.each([
    ["an inline probe", 'python3 -c "import jsonschema"'],
    ["an explicit sh invocation (allowed, and not path-like)", "sh scripts/a.sh"],
    ["a .bash extension (a documented miss of the heuristic)", "scripts/a.bash"],
    ["a script with arguments (a documented miss)", "scripts/a.sh --quick"],
  ])("does not flag %s", (_, command) => {
    expect(lintPreflight("validation_loop.preflight_check", command)).toEqual([]);
  });
});

describe("${VAR} expands only from an explicit allowlisted environment", () => {
  const env = { PATH: "/usr/bin", HOME: "/home/a", GH_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", PYTHON: "python3" };

  it("expands allowlisted references", () => {
    expect(expandPreflight("${PYTHON} -c 'import sys' && test -d ${HOME}", env, ["PYTHON", "HOME"])).toEqual({
      ok: true,
      command: "python3 -c 'import sys' && test -d /home/a",
      references: ["PYTHON", "HOME"],
    });
  });

  it.each([
    ["${GH_TOKEN}, even when someone allowlisted it", "curl -H 'Authorization: ${GH_TOKEN}' x", ["GH_TOKEN"]],
    ["${GITHUB_TOKEN}", "echo ${GITHUB_TOKEN}", ["PATH"]],
    ["a provider key (${ANTHROPIC_API_KEY})", "echo ${ANTHROPIC_API_KEY}", ["PATH"]],
    ["any *_TOKEN by shape (${MY_SERVICE_TOKEN})", "echo ${MY_SERVICE_TOKEN}", ["MY_SERVICE_TOKEN"]],
    ["a variable outside the allowlist", "echo ${USER}", ["PATH"]],
    ["a default-value form", "echo ${PATH:-/bin}", ["PATH"]],
    ["an unclosed reference", "echo ${PATH", ["PATH"]],
  ])("refuses %s as env-not-allowed before expanding anything", (_, command, allowlist) => {
    const out = expandPreflight(command, env, allowlist);
    expect(out).toMatchObject({ ok: false, verdict: { code: "env-not-allowed" } });
    if (!out.ok) expect(out.verdict.reason).not.toContain(env.GH_TOKEN);
  });

  it("lets an individually justified credential through, and only that one", () => {
    expect(expandPreflight("x ${NPM_TOKEN}", { NPM_TOKEN: "n" }, ["NPM_TOKEN"], { justifiedCredentials: ["NPM_TOKEN"] })).toMatchObject({
      ok: true,
      command: "x n",
    });
    expect(expandPreflight("x ${GH_TOKEN}", env, ["GH_TOKEN"], { justifiedCredentials: ["NPM_TOKEN"] })).toMatchObject({ ok: false });
  });
});

describe("diagnostics that echo the command redact sensitive values", () => {
  it.each([
    ["a credential variable's value", "failed: curl -H 'x: s3cr3t-value' api", { API_TOKEN: "s3cr3t-value" }, "s3cr3t-value"],
    [
      "a GitHub token shape from nowhere in env",
      "timeout: echo ghp_abcdefghijklmnopqrstuvwxyz0123",
      {},
      "ghp_abcdefghijklmnopqrstuvwxyz0123",
    ],
    ["a bearer header", "failed: curl -H 'Authorization: Bearer abc.def.ghi12345'", {}, "abc.def.ghi12345"],
  ])("removes %s", (_, text, env, secret) => {
    expect(redact(text, env)).not.toContain(secret);
  });

  it("keeps non-sensitive values readable", () => {
    expect(redact("python3 -c 'import json' in /home/a", { HOME: "/home/a" })).toBe("python3 -c 'import json' in /home/a");
  });
});

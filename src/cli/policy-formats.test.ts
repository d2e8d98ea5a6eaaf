import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTab } from "./testing/run-tab";

// Each other proxy's format through the real binary (bin/tab.mjs): its policy imported, a
// request checked against it, its sample log replayed and learned from (the draft in the format
// the user brought, without --format), the policy exported; and the round trip: the exported
// file decides every line of the same log the same way as the original (zero changed verdicts).
// sandbox-runtime has no log of its own: its sample is this project's log of a session under
// those settings, and the draft takes the format of the --base settings.

const root = join(import.meta.dirname, "..", "..");
const testdata = join(root, "src", "policy-tools", "formats", "testdata");

const tab = runTab;

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tab-policy-formats-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface FormatCase {
  format: string;
  policy: string;
  log: string;
  role?: string;
  allowed: string;
  refused: string;
  /** What the first line of a draft in this format looks like. */
  draft: RegExp;
  /** learn's extra arguments: sandbox-runtime's draft takes its format from --base. */
  learnArgs?: string[];
  requests: number;
}

const CASES: FormatCase[] = [
  {
    format: "smokescreen",
    policy: "smokescreen-acl.yaml",
    log: "smokescreen-billing.jsonl",
    role: "billing",
    allowed: "CONNECT api.stripe.com:443",
    refused: "CONNECT pastebin.com:443",
    draft: /^version: v1\n/,
    requests: 8,
  },
  {
    format: "awf",
    policy: "awf-config.yaml",
    log: "awf-audit.jsonl",
    allowed: "CONNECT github.com:443",
    refused: "CONNECT gist.github.com:443",
    draft: /^network:\n {2}allowDomains:\n/,
    requests: 9,
  },
  {
    format: "awf",
    policy: "awf-config.yaml",
    log: "awf-audit-legacy.jsonl",
    allowed: "GET https://raw.githubusercontent.com/a/b",
    refused: "CONNECT pypi.org:443",
    draft: /^network:\n {2}allowDomains:\n/,
    requests: 5,
  },
  {
    format: "openshell",
    policy: "openshell-policy.yaml",
    log: "openshell-ocsf.jsonl",
    allowed: "GET https://github.com/repos/NVIDIA/OpenShell",
    refused: "DELETE https://github.com/repos/NVIDIA/OpenShell",
    draft: /^version: 1\nnetwork_policies:\n/,
    requests: 10,
  },
  {
    format: "sandbox-runtime",
    policy: "srt-settings.json",
    log: "srt-session.jsonl",
    allowed: "GET https://api.github.com/zen",
    refused: "GET https://gist.github.com/",
    draft: /^\{\n {2}"network": \{\n {4}"allowedDomains": \[/,
    learnArgs: ["--base", join(testdata, "srt-settings.json")],
    requests: 7,
  },
];

describe("npx tab policy: import, check, replay, learn and export each proxy's format on its sample log", () => {
  for (const c of CASES)
    it(`${c.format} (${c.log}): zero changed verdicts through import and export`, async () => {
      const policy = join(testdata, c.policy);
      const log = join(testdata, c.log);
      const role = c.role === undefined ? [] : ["--role", c.role];

      const imported = await tab("policy", "import", "--format", c.format, policy, ...role);
      expect(imported.code, imported.stderr).toBe(0);
      const policyJson = join(dir, `${c.log}.policy.json`);
      await writeFile(policyJson, imported.stdout);

      expect((await tab("policy", "check", policy, c.allowed, ...role)).code).toBe(0);
      const refused = await tab("policy", "check", policy, c.refused, ...role);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/refused|not-allowed/);

      // The foreign file directly, and the policy it imports as: the same rows, none changed.
      const direct = await tab("policy", "replay", policy, log, ...role);
      expect(direct.code, direct.stdout).toBe(0);
      expect(direct.stdout).toMatch(
        new RegExp(`^${c.requests} requests re-decided: \\d+ unchanged, 0 newly refused, 0 newly allowed`, "m"),
      );
      const viaJson = await tab("policy", "replay", policyJson, log);
      expect(viaJson.stdout).toBe(direct.stdout);

      const exported = await tab("policy", "export", "--format", c.format, policyJson, ...role);
      expect(exported.code, exported.stderr).toBe(0);
      const exportedFile = join(dir, `${c.log}.exported${c.policy.slice(c.policy.lastIndexOf("."))}`);
      await writeFile(exportedFile, exported.stdout);
      const again = await tab("policy", "replay", exportedFile, log, ...role);
      expect(again.code, again.stdout).toBe(0);
      expect(again.stdout.split("\n").map(verdicts)).toEqual(direct.stdout.split("\n").map(verdicts));

      // learn drafts in the format the user brought; the draft replays the log with nothing changed.
      const learned = await tab("policy", "learn", log, ...(c.learnArgs ?? []), ...role);
      expect(learned.code, learned.stderr).toBe(0);
      expect(learned.stdout).toMatch(c.draft);
      expect(learned.stderr).toMatch(/drafted as .* format; --format json for this project's policy\)/);
      const draftFile = join(dir, `${c.log}.draft${c.policy.slice(c.policy.lastIndexOf("."))}`);
      await writeFile(draftFile, learned.stdout);
      const replayDraft = await tab("policy", "replay", draftFile, log, ...role);
      expect(replayDraft.stdout).toMatch(/ 0 newly refused, 0 newly allowed/);

      // --format still overrides: json is this project's own policy.
      const asJson = await tab("policy", "learn", log, "--format", "json", ...(c.learnArgs ?? []), ...role);
      expect(JSON.parse(asJson.stdout).version).toBe(1);
    });

  it("replay names, line by line, where awf decided differently from the translated config", async () => {
    const log = join(dir, "awf-differs.jsonl");
    await writeFile(
      log,
      `${JSON.stringify({ ts: 1761074374.646, client: "172.30.0.20", host: "api.github.com:443", dest: "140.82.114.22:443", method: "CONNECT", status: 200, decision: "TCP_TUNNEL", url: "api.github.com:443" })}\n`,
    );
    const out = await tab("policy", "replay", join(testdata, "awf-config.yaml"), log);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("line 1 #1 CONNECT api.github.com:443  served → host-not-allowed  newly-refused");
  });
});

/** A replay row's verdicts and outcome, without the reason text (which names the policy's rule). */
function verdicts(line: string): string {
  return line.replace(/: .*$/, "");
}

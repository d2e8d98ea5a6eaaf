// biome-ignore-all lint/suspicious/noTemplateCurlyInString: runner lines quote literal ${VAR} references.
import { describe, expect, it } from "vitest";
import { redact } from "../resolver";
import { lineLevel, parseRunnerLine, runnerLineEvent, runOutcome } from "./step-lines";

describe("the runner's console lines become log events (guest/runner/README.md)", () => {
  it.each([
    [
      "a quarantine step",
      "tab-run: step=quarantine path=.opencode kind=config to=/run/tab-run/run-1/quarantine",
      { step: "quarantine", path: ".opencode", kind: "config", to: "/run/tab-run/run-1/quarantine" },
      null,
    ],
    [
      "a refusal with free text after --",
      "tab-run: step=preflight result=refused code=env-not-allowed -- ${GH_TOKEN} is a credential",
      { step: "preflight", result: "refused", code: "env-not-allowed" },
      "${GH_TOKEN} is a credential",
    ],
    [
      "an agent step with percent-encoded values",
      "tab-agent: step=10 verb=connect target=93.184.216.34%20443 outcome=denied result=EACCES",
      { step: "10", verb: "connect", target: "93.184.216.34 443", outcome: "denied", result: "EACCES" },
      null,
    ],
    [
      "a line wrapped in terminal escapes",
      "\x1b[6ntab-agent: step=2 verb=list path=. outcome=ok entries=README.md,src\r",
      { step: "2", verb: "list", path: ".", outcome: "ok", entries: "README.md,src" },
      null,
    ],
  ])("parses %s", (_, raw, fields, text) => {
    expect(parseRunnerLine(raw)).toMatchObject({ fields, text, quote: null });
  });

  it.each([
    ["the echoed command line", "guest:~# sh /mnt/tab/bin/tab-run /mnt/tab/run/run-1"],
    ["another program's line", "llrun: ruleset abi=6 fs_ro=/ fs_rw=/tmp connect=3128 bind=* scope= dropped="],
    ["a prefix without fields", "tab-run: hello"],
  ])("ignores %s", (_, raw) => {
    expect(parseRunnerLine(raw)).toBeNull();
  });

  it("keeps quoted output out of the log", () => {
    const line = parseRunnerLine("tab-run: | probe needs [redacted]");
    expect(line).toMatchObject({ quote: "probe needs [redacted]" });
    expect(runnerLineEvent(line!, "run-1", (t) => t)).toBeNull();
  });

  it.each([
    ["a run that ended ok", "tab-run: outcome=ok stage=done status=0 run=run-1", { outcome: "ok", stage: "done", status: 0, run: "run-1" }],
    [
      "a run that failed fast at preflight",
      "tab-run: outcome=failed stage=preflight status=3 run=run-2",
      { outcome: "failed", stage: "preflight", status: 3 },
    ],
  ])("reads the outcome of %s", (_, raw, outcome) => {
    expect(runOutcome(parseRunnerLine(raw)!)).toMatchObject(outcome);
  });

  it("does not take an agent step's outcome for the run's", () => {
    expect(runOutcome(parseRunnerLine("tab-agent: step=3 verb=read path=x outcome=failed")!)).toBeNull();
  });

  it.each([
    ["a failed run is an error", "tab-run: outcome=failed stage=agent status=1 run=r", "error"],
    [
      "a proxy refusal is a warning",
      "tab-agent: step=8 verb=fetch url=https://pastebin.com/ outcome=refused status=403 code=host-not-allowed",
      "warning",
    ],
    ["discarded re-introduced config is a warning", "tab-run: step=discard path=opencode.json when=agent", "warning"],
    ["a changed workspace is a warning", "tab-run: step=restore tree=ab identical=no", "warning"],
    ["a quarantine is information", "tab-run: step=quarantine path=AGENTS.md kind=notes", "info"],
    ["an absent file is information (that is the point)", "tab-agent: step=3 verb=read path=opencode.json outcome=absent", "info"],
  ])("%s", (_, raw, level) => {
    expect(lineLevel(parseRunnerLine(raw)!)).toBe(level);
  });

  it.each([
    ["a tab-run step is named by its step", "tab-run: step=quarantine path=AGENTS.md kind=notes", { step: "quarantine", outcome: null }],
    ["a tab-agent step is named by its verb", "tab-agent: step=8 verb=fetch url=x outcome=refused", { step: "fetch", outcome: "refused" }],
    ["the agent's first line is its start", "tab-agent: start workspace=/tmp/w steps=3", { step: "start", outcome: null }],
    ["the run's last line is its outcome", "tab-run: outcome=ok stage=done status=0 run=run-1", { step: "outcome", outcome: "ok" }],
  ])("%s (a runner.step event, not a note)", (_, raw, expected) => {
    expect(runnerLineEvent(parseRunnerLine(raw)!, "run-1", (t) => t)).toMatchObject({ kind: "runner.step", run: "run-1", ...expected });
  });

  it("redacts the page's known secrets on top of the guest's own redaction", () => {
    const secret = "s3cr3t-value-123";
    const line = parseRunnerLine(`tab-run: step=preflight result=failed status=1 -- command: probe ${secret}`)!;
    const event = runnerLineEvent(line, "run-1", (t) => redact(t, { API_TOKEN: secret }));
    expect(event).toMatchObject({
      kind: "runner.step",
      run: "run-1",
      step: "preflight",
      outcome: "failed",
      level: "warning",
      source: "tab-run",
    });
    expect(JSON.stringify(event)).not.toContain(secret);
  });
});

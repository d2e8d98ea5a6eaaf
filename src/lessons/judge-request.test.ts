import { describe, expect, it } from "vitest";
import { draftLesson } from "./draft";
import { judgeStep } from "./judge";
import { ExpectItem, type LessonStep } from "./schema";
import { pastebinRefused, zenCut, zenServed, zenUnreadable } from "./testing/windows";

const step = (...expect: ExpectItem[]): LessonStep => ({ title: "S", run: "true", expect });
const served: ExpectItem = { verdict: "served", by: "proxy", target: "api.github.com" };

// One HTTPS request makes two decisions: the CONNECT that opens the tunnel, then the request
// inside it. A `verdict` item judges the request's own (docs/lessons.md).
describe("a verdict item judges the request, not the tunnel that carried it", () => {
  it("a served step whose upstream fails does not pass, and says the tunnel opened but the request inside was refused", () => {
    const judged = judgeStep(step(served), zenUnreadable());
    expect(judged.passed).toBe(false);
    expect(judged.items[0]?.detail).toMatch(/opened the tunnel to api.github.com:443.*but the request inside it did not succeed/);
    expect(judged.items[0]?.detail).toMatch(/upstream-unreadable/);
    expect(judged.explanation).toMatch(/What happened instead: the proxy refused GET https:\/\/api.github.com\/zen: upstream-unreadable/);
    expect(judged.decisive).toMatchObject({ kind: "proxy.decision", code: "upstream-unreadable" });
  });

  it("a served step passes on the request inside the tunnel, which is its decisive event", () => {
    const judged = judgeStep(step(served), zenServed());
    expect(judged.passed).toBe(true);
    expect(judged.decisive).toMatchObject({ code: "served", target: "https://api.github.com/zen" });
  });

  it("`of: tunnel` asks for the CONNECT, and is met when the tunnel opened whatever happened inside", () => {
    const judged = judgeStep(step({ ...served, of: "tunnel" }), zenUnreadable());
    expect(judged.items[0]?.met).toBe(true);
    expect(judged.items[0]?.detail).toMatch(/opened the tunnel/);
    expect(judgeStep(step({ verdict: "upstream-unreadable", of: "tunnel" }), zenUnreadable()).items[0]?.met).toBe(false);
  });

  it("the refused request's own verdict is met by default", () => {
    expect(judgeStep(step({ verdict: "upstream-unreadable", by: "proxy", target: "api.github.com" }), zenUnreadable()).passed).toBe(true);
  });

  it("a CONNECT refused is the request's decision: the tunnel never opened", () => {
    expect(judgeStep(step({ verdict: "host-not-allowed", target: "pastebin.com" }), pastebinRefused()).passed).toBe(true);
    expect(judgeStep(step({ verdict: "host-not-allowed", of: "tunnel" }), pastebinRefused()).passed).toBe(true);
  });

  it("a request served whose body the upstream cut short did not succeed", () => {
    const judged = judgeStep(step(served), zenCut());
    expect(judged.passed).toBe(false);
    expect(judged.items[0]?.detail).toMatch(/cut its body short/);
  });

  it("Save as lesson writes the request's decision, which passes against the command it came from", () => {
    const lesson = draftLesson([zenServed()], { title: "t" });
    expect(lesson.steps[0]?.expect[0]).toEqual({ verdict: "served", by: "proxy", target: "api.github.com" });
    expect(lesson.steps[0]?.explain).toMatch(/allowed GET https:\/\/api.github.com\/zen/);
    const offline = draftLesson([zenUnreadable()], { title: "t" });
    expect(offline.steps[0]?.expect[0]).toEqual({ verdict: "upstream-unreadable", by: "proxy", target: "api.github.com" });
  });
});

describe("the format of `of`", () => {
  it("qualifies a verdict item only, and names request or tunnel", () => {
    expect(ExpectItem.safeParse({ verdict: "served", of: "tunnel" }).success).toBe(true);
    expect(ExpectItem.safeParse({ verdict: "served", of: "request" }).success).toBe(true);
    expect(ExpectItem.safeParse({ exit: 0, of: "tunnel" }).success).toBe(false);
    const issues = ExpectItem.safeParse({ verdict: "served", of: "connect" }).error?.issues ?? [];
    expect(issues.map((i) => i.message).join()).toMatch(/unknown decision "connect"/);
  });
});

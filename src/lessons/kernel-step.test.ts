import { describe, expect, it } from "vitest";
import { judgedOnKernelDecision } from "./kernel-step";
import { LessonStep } from "./schema";

const step = (expect: unknown[]) => LessonStep.parse({ title: "t", solve: "true", expect });

describe("a step judged on the kernel's own decision waits for it", () => {
  it.each([
    ["a verdict by the kernel", [{ verdict: "landlock-denied", by: "kernel" }], true],
    ["landlock-denied with no decider", [{ verdict: "landlock-denied" }], true],
    ["a proxy verdict", [{ verdict: "host-not-allowed", by: "proxy" }], false],
    ["the guest's own view (kernel: EACCES) and an exit", [{ kernel: "EACCES" }, { exit: "nonzero" }], false],
  ])("%s: %s", (_name, items, expected) => {
    expect(judgedOnKernelDecision(step(items))).toBe(expected);
  });
});

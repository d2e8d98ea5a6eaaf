import { stringify } from "yaml";
import { Policy } from "../policy";
import { mainOutcome, type Outcome, outcomeOf } from "./outcome";
import { type ExpectItem, KERNEL_RESULTS, type Lesson, type LessonStep } from "./schema";
import type { CommandWindow } from "./window";

/** The host of a decision's target (`pastebin.com:443`, `https://h/p`, `10.0.2.2:3128`), so a draft's `target` stays readable. */
function hostOf(target: string): string {
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return new URL(target).hostname;
  } catch {
    // not a URL: fall through to the host:port form
  }
  const bare = target.split("/")[0] ?? target;
  return bare.replace(/:\d+$/, "");
}

function expectFrom(outcome: Outcome | null): ExpectItem[] {
  if (outcome?.kind === "kernel.result" && outcome.result !== undefined) {
    const known = KERNEL_RESULTS.find((r) => r === outcome.result);
    return known ? [{ kernel: known }] : [];
  }
  if (!outcome?.code) return [];
  if (outcome.kind === "wire.dns") return outcome.target ? [{ dns: outcome.target }] : [];
  if (outcome.allowed === undefined || outcome.by === undefined) return [];
  const host = outcome.target ? hostOf(outcome.target) : "";
  return [
    { verdict: outcome.code as Extract<ExpectItem, { verdict: string }>["verdict"], by: outcome.by, ...(host ? { target: host } : {}) },
  ];
}

const titleOf = (command: string) => (command.length > 60 ? `${command.slice(0, 57)}…` : command);

/**
 * "Save as lesson": one task step per command, its `expect` filled from what the log recorded
 * for that command (the decisive decision's code, decider and host, or the kernel's result, or
 * the DNS query) and its exit status. Commands with an empty line are skipped; a RangeError
 * when nothing is left (a lesson has at least one step).
 */
export function draftLesson(windows: readonly CommandWindow[], options: { title: string; policy?: unknown }): Lesson {
  const steps: LessonStep[] = [];
  for (const window of windows) {
    const command = window.command.trim();
    if (command === "") continue;
    const outcome = mainOutcome(window.events.map(outcomeOf).filter((o): o is Outcome => o !== null));
    const expect = expectFrom(outcome);
    if (window.status !== null) expect.push({ exit: window.status });
    if (expect.length === 0) expect.push({ output: "" });
    steps.push({
      title: titleOf(command),
      type: "task",
      run: command,
      expect,
      ...(outcome ? { explain: `${outcome.sentence.charAt(0).toUpperCase()}${outcome.sentence.slice(1)}.` } : {}),
    });
  }
  if (steps.length === 0) throw new RangeError("no command to draft a lesson from: run one first");
  const policy = options.policy === undefined ? null : Policy.safeParse(options.policy);
  return {
    lesson: 1,
    title: options.title,
    ...(policy?.success ? { policy: policy.data } : {}),
    steps,
  };
}

/** A lesson as YAML, fields in the format's order, long lines unwrapped. */
export function serializeLesson(lesson: Lesson): string {
  const ordered = {
    lesson: lesson.lesson,
    title: lesson.title,
    ...(lesson.summary !== undefined ? { summary: lesson.summary } : {}),
    ...(lesson.policy !== undefined ? { policy: lesson.policy } : {}),
    ...(lesson.setup !== undefined ? { setup: lesson.setup } : {}),
    steps: lesson.steps.map((s) => ({
      title: s.title,
      ...(s.text !== undefined ? { text: s.text } : {}),
      ...(s.type !== undefined ? { type: s.type } : {}),
      ...(s.run !== undefined ? { run: s.run } : {}),
      expect: s.expect,
      ...(s.hint !== undefined ? { hint: s.hint } : {}),
      ...(s.needs !== undefined ? { needs: s.needs } : {}),
      ...(s.explain !== undefined ? { explain: s.explain } : {}),
      ...(s.solve !== undefined ? { solve: s.solve } : {}),
    })),
  };
  return stringify(ordered, { lineWidth: 0 });
}

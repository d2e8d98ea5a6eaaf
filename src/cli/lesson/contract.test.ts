import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type CheckRunner, type CommandWindow, lessonPin, parseLesson, runStepChecks } from "../../lessons";
import { zenUnreadable } from "../../lessons/testing/windows";
import type { NewEvent } from "../../log";
import { loadLessonText } from "../../page/features/lessons/lesson-core";
import { closedPlayer, currentStep, updatePlayer } from "../../page/features/lessons/player-machine";
import { type RecordedWindow, runLessonSteps } from "./test";

// One lesson run for both hosts: every shipped lesson, step by step, through the page's run
// (lesson-core over src/lessons, what the player drives) and `lesson test`'s (runLessonSteps),
// against the windows `npx tab lesson test lessons/*.yaml --record-windows FILE` recorded on the
// shipped guest. Each step's outcome and decisive event must be the same in both.
// Re-record after changing a shipped lesson's commands (docs/lessons.md, "Checking and testing").

const LESSONS = new URL("../../../lessons/", import.meta.url);
const RECORDED: RecordedWindow[] = JSON.parse(readFileSync(new URL("./testing/shipped/windows.json", import.meta.url), "utf8"));

const shipped = readdirSync(LESSONS)
  .filter((name) => name.endsWith(".yaml"))
  .sort();

/**
 * Answers each typed command with the next window recorded for it, in the order they were typed,
 * and each check (run out of band after a command) with what the recording kept of it in that
 * command's window.
 */
function replay(windows: readonly CommandWindow[]) {
  const queue = [...windows];
  let last: CommandWindow | undefined;
  const type = async (command: string): Promise<CommandWindow> => {
    const next = queue.shift();
    if (!next) throw new Error(`no window recorded for \`${command}\``);
    if (next.command !== command) throw new Error(`typed \`${command}\`, the recording has \`${next.command}\``);
    last = next;
    return { ...next, checks: [] };
  };
  const check: CheckRunner = async (c) => {
    const ran = last?.checks?.find((r) => r.check === c.check);
    if (!ran) throw new Error(`no run of the check \`${c.check}\` recorded after \`${last?.command}\``);
    return ran;
  };
  return { type, check };
}

interface StepOutcome {
  step: number;
  event: NewEvent | null;
}

async function cliRun(text: string, pin: string, windows: readonly CommandWindow[]): Promise<StepOutcome[]> {
  const parsed = parseLesson(text);
  if (!parsed.ok) throw new Error("unparsable");
  const seen: StepOutcome[] = [];
  const { type, check } = replay(windows);
  await runLessonSteps(parsed.lesson, pin, type, {
    timeoutMs: 10_000,
    check,
    out: () => undefined,
    onAttempt: (attempt, step) => seen.push({ step, event: attempt?.event ?? null }),
  });
  return seen;
}

/** The page's run (the player's state machine): setup typed (not judged), then each current step's command typed as Show me and judged. */
async function pageRun(text: string, pin: string, windows: readonly CommandWindow[]): Promise<StepOutcome[]> {
  const loaded = loadLessonText({ text, pin, source: "bundled", ref: "contract" });
  if (!loaded.ok) throw new Error(loaded.reason);
  const lesson = loaded.lesson;
  const { type, check } = replay(windows);
  let player = updatePlayer(closedPlayer, { kind: "open", lesson, saved: undefined, startAt: null });
  for (const effect of player.effects) if (effect.kind === "run-setup") for (const command of effect.commands) await type(command);
  const seen: StepOutcome[] = [];
  for (let i = 0; i < lesson.steps.length; i++) {
    const command = lesson.steps[currentStep(player.state) ?? 0]?.command;
    if (!command) {
      seen.push({ step: i, event: null });
      player = updatePlayer(player.state, { kind: "open", lesson, saved: player.state.progress, startAt: i + 1 });
      continue;
    }
    const typed = await type(command);
    // The page's mount runs the current step's checks after the command, out of band (player-load's runChecks).
    const checks = await runStepChecks(lesson.lesson.steps[currentStep(player.state) ?? 0]!, check);
    player = updatePlayer(player.state, { kind: "command", window: checks.length > 0 ? { ...typed, checks } : typed });
    const logged = player.effects.find((e) => e.kind === "log");
    seen.push({ step: i, event: logged?.kind === "log" ? logged.event : null });
    // A learner who does not pass stays; the contract goes on to the next step as lesson test does.
    if (currentStep(player.state) !== i + 1)
      player = updatePlayer(player.state, { kind: "open", lesson, saved: player.state.progress, startAt: i + 1 });
  }
  return seen;
}

describe("every shipped lesson runs the same in the page and in lesson test", () => {
  it("has a recording of every shipped lesson", () => {
    expect(shipped.filter((name) => !RECORDED.some((r) => r.lesson === name))).toEqual([]);
  });

  it.each(shipped)("%s: each step's outcome and decisive event are the same, and every step passes", async (name) => {
    const text = readFileSync(new URL(name, LESSONS), "utf8");
    const pin = await lessonPin(new TextEncoder().encode(text));
    const windows = RECORDED.filter((r) => r.lesson === name).map((r) => r.window);
    const page = await pageRun(text, pin, windows);
    const cli = await cliRun(text, pin, windows);
    expect(page).toEqual(cli);
    expect(page.map((s) => (s.event?.kind === "lesson.step" ? s.event.result : "none"))).toEqual(page.map(() => "passed"));
  });
});

describe("a served step whose upstream fails does not pass, in both hosts", () => {
  const text = [
    "lesson: 1",
    "title: Served",
    "steps:",
    "  - title: An allowed GET",
    "    type: demo",
    "    run: curl -sS https://api.github.com/zen; echo",
    "    expect:",
    "      - verdict: served",
    "        by: proxy",
    "        target: api.github.com",
  ].join("\n");

  it("fails the step with the request's refusal as its decisive event, the same in the page and lesson test", async () => {
    const pin = await lessonPin(new TextEncoder().encode(text));
    const page = await pageRun(text, pin, [zenUnreadable()]);
    const cli = await cliRun(text, pin, [zenUnreadable()]);
    expect(page).toEqual(cli);
    expect(page[0]?.event).toMatchObject({ kind: "lesson.step", result: "failed", code: "upstream-unreadable", by: "proxy" });
    expect(page[0]?.event).toMatchObject({ message: expect.stringMatching(/the request inside it did not succeed/) });
  });
});

describe("a check step runs the same in both hosts", () => {
  const text = [
    "lesson: 1",
    "title: Leave a note",
    "steps:",
    "  - title: Write it",
    "    run: echo hi > /tmp/note",
    "    expect:",
    "      - exit: 0",
    "      - check: test -s /tmp/note",
  ].join("\n");

  it("lesson test types only the command, runs the check out of band after it as root, and judges its status", async () => {
    const pin = await lessonPin(new TextEncoder().encode(text));
    const typed: string[] = [];
    const checked: unknown[] = [];
    const outcomes: (string | undefined)[] = [];
    const parsed = parseLesson(text);
    if (!parsed.ok) throw new Error("unparsable");
    for (const status of [0, 1]) {
      await runLessonSteps(
        parsed.lesson,
        pin,
        async (command) => {
          typed.push(command);
          return { command, status: 0, interrupted: false, output: "", events: [] };
        },
        {
          timeoutMs: 10_000,
          out: () => undefined,
          check: async (c) => {
            checked.push(c);
            return { status, timedOut: false, output: "" };
          },
          onAttempt: (a) => outcomes.push(a?.event.kind === "lesson.step" ? a.event.result : undefined),
        },
      );
    }
    expect(typed).toEqual(["echo hi > /tmp/note", "echo hi > /tmp/note"]);
    expect(checked).toEqual([0, 1].map(() => ({ check: "test -s /tmp/note", as: "root", timeoutMs: 10_000 })));
    expect(outcomes).toEqual(["passed", "failed"]);
  });
});

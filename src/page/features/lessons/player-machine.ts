import { type CommandWindow, createLessonRun, LessonProgress } from "../../../lessons";
import type { NewEvent } from "../../../log";
import type { LessonMessage } from "./embed-messages";
import type { LoadedLesson } from "./lesson-core";
import type { AttemptView } from "./view";

/**
 * The lesson player's state machine: `(state, event) → {state, effects}`, without a DOM. The
 * lesson's place is plain data (src/lessons' LessonProgress); each command is judged by the
 * core's run restored from it, so the page is only glue: the mount performs the effects (log,
 * post to an embedding page, keep the progress, type the setup) and draws the state.
 */
export interface PlayerModel {
  lesson: LoadedLesson | null;
  progress: LessonProgress | null;
  /** Why no step is judged: a setup command failed (fatal until Restart, as in `lesson test`). */
  blocked: string | null;
  /** What the last judged command produced. */
  attempt: AttemptView | null;
  /**
   * The step this browser had kept when a link's `&step=` started the lesson behind it: the
   * kept progress is not overwritten until this visit passes beyond it (a docs page embedding
   * step 1 must not undo a reader's progress). 0 when nothing was kept ahead.
   */
  keptAhead?: number;
  /**
   * The commands a resume would type, waiting for the reader's click (a lesson from a link or a
   * URL: see `resumeRule`); null when nothing waits.
   */
  replay?: PendingReplay | null;
}

/** A resume shown on its button: the setup and the earlier steps' commands, typed only once the reader presses it. */
export interface PendingReplay {
  /** The step (from 0) it restores. */
  step: number;
  setup: readonly string[];
  /** The earlier steps' commands (each step's solve, else its run), in order. */
  commands: readonly string[];
}

export const closedPlayer: PlayerModel = { lesson: null, progress: null, blocked: null, attempt: null };

export type PlayerEvent =
  /** A lesson was read (and accepted, when a link brought it); `saved` is this browser's kept progress, `startAt` a link's step. */
  | { kind: "open"; lesson: LoadedLesson; saved: unknown; startAt: number | null }
  | { kind: "command"; window: CommandWindow }
  | { kind: "setup-failed"; reason: string }
  /** The reader pressed "Replay N commands": type the pending resume. */
  | { kind: "replay" }
  | { kind: "restart" }
  | { kind: "close" };

export type PlayerEffect =
  | { kind: "log"; event: NewEvent }
  | { kind: "post"; message: LessonMessage }
  /** Keep the progress for this lesson's pin. */
  | { kind: "persist" }
  /** Forget the progress kept for this lesson's pin. */
  | { kind: "forget" }
  /**
   * Type the setup (each must exit 0), then `replay`: the earlier steps' commands when resuming
   * past step 1 (a refusal is what many of them show, so their status is not judged; only a
   * command that never ends blocks the lesson).
   */
  | { kind: "run-setup"; commands: readonly string[]; replay?: readonly string[] }
  /** A line the learner reads above the step (why commands are being typed). */
  | { kind: "say"; text: string };

export interface Transition {
  state: PlayerModel;
  effects: PlayerEffect[];
}

/** The current step (from 0), the steps' count once done, or null with no lesson open. */
export const currentStep = (state: PlayerModel): number | null => state.progress?.step ?? null;

/**
 * Whether the page stays focused on the lesson (the scenario bar and the harness field step
 * aside): while a lesson is open and not finished. A finished lesson left open gives the page
 * back, so the verdict table's rows are there again without a Close.
 */
export const focusesPage = (state: PlayerModel): boolean => state.lesson !== null && (currentStep(state) ?? 0) < state.lesson.steps.length;

const started = (lesson: LoadedLesson, step: number): PlayerEffect[] =>
  step < lesson.steps.length
    ? [{ kind: "post", message: { type: "lesson.step-started", pin: lesson.pin, step: step + 1, title: lesson.steps[step]!.title } }]
    : [];

const setup = (lesson: LoadedLesson): PlayerEffect[] => (lesson.setup.length > 0 ? [{ kind: "run-setup", commands: lesson.setup }] : []);

/**
 * How opening at `step` brings the guest to that step's starting state. The guest keeps nothing
 * of an earlier visit, so past step 1 (a reload, a kept progress, a link's step) the setup and
 * the command of each earlier step (its solve, else its run) are typed again, visibly and not
 * judged. Who may start that typing is the design's trust rule (docs/decisions/0028): a shipped
 * lesson's commands are typed at once (`at-once`); a lesson from a link or a URL types nothing
 * before the reader's click (`on-click`: its commands are listed on a button), whatever its
 * card, which never showed the steps' commands. `none`: step 1, or nothing to type.
 */
export function resumeRule(lesson: LoadedLesson, step: number): { kind: "none" } | { kind: "at-once" | "on-click"; replay: PendingReplay } {
  const commands = lesson.steps.slice(0, step).flatMap((s) => (s.command ? [s.command] : []));
  if (step === 0 || step >= lesson.steps.length || (commands.length === 0 && lesson.setup.length === 0)) return { kind: "none" };
  return { kind: lesson.builtIn ? "at-once" : "on-click", replay: { step, setup: lesson.setup, commands } };
}

/** How many commands a replay types. */
const replayCount = (replay: PendingReplay): number => replay.setup.length + replay.commands.length;

const replaying = (replay: PendingReplay): PlayerEffect[] => [
  {
    kind: "say",
    text: `Resuming at step ${replay.step + 1}: the guest does not keep what earlier steps left, so the setup and the commands of steps 1–${replay.step} are typed again first.`,
  },
  { kind: "run-setup", commands: replay.setup, replay: replay.commands },
];

function resume(lesson: LoadedLesson, step: number): { effects: PlayerEffect[]; pending: PendingReplay | null } {
  const rule = resumeRule(lesson, step);
  if (rule.kind === "none") return { effects: setup(lesson), pending: null };
  if (rule.kind === "at-once") return { effects: replaying(rule.replay), pending: null };
  const n = replayCount(rule.replay);
  return {
    effects: [
      {
        kind: "say",
        text: `Resuming at step ${step + 1}: the guest does not keep what steps 1–${step} left. This lesson came from a link, so nothing is typed until you press "Replay ${n} ${n === 1 ? "command" : "commands"}" (each is listed), or Restart.`,
      },
    ],
    pending: rule.replay,
  };
}

function open(lesson: LoadedLesson, saved: unknown, startAt: number | null): Transition {
  const kept = LessonProgress.safeParse(saved);
  const run = createLessonRun(lesson.lesson, lesson.pin, kept.success ? kept.data : undefined);
  const keptStep = run.step;
  // A link that names its step (an embedding docs page) starts there, whatever this browser kept;
  // what it kept stays kept until this visit passes beyond it.
  if (startAt !== null && startAt < lesson.steps.length) run.jumpTo(startAt);
  const keptAhead = run.step < keptStep ? keptStep : 0;
  const resumed = resume(lesson, run.step);
  return {
    state: { lesson, progress: run.progress, blocked: null, attempt: null, keptAhead, replay: resumed.pending },
    effects: [
      { kind: "log", event: lesson.loadEvent },
      { kind: "post", message: { type: "lesson.loaded", pin: lesson.pin, title: lesson.title, steps: lesson.steps.length } },
      ...(keptAhead > 0 ? [] : [{ kind: "persist" } as const]),
      ...started(lesson, run.step),
      ...resumed.effects,
    ],
  };
}

function command(state: PlayerModel, window: CommandWindow): Transition {
  const { lesson, progress } = state;
  if (!lesson || !progress || state.blocked !== null) return { state, effects: [] };
  const run = createLessonRun(lesson.lesson, lesson.pin, progress);
  const a = run.attempt(window);
  if (!a) return { state, effects: [] };
  const title = lesson.steps[a.step]!.title;
  const code = a.judgement.decisive?.code ?? null;
  const attempt: AttemptView = {
    result: a.passed ? "passed" : "failed",
    step: a.step,
    explanation: a.judgement.explanation,
    verdict: a.verdict,
    note: a.note,
    unmet: a.unmet,
  };
  const told: LessonMessage = a.passed
    ? { type: "lesson.step-passed", pin: lesson.pin, step: a.step + 1, title, code }
    : { type: "lesson.step-failed", pin: lesson.pin, step: a.step + 1, title, code, unmet: a.unmetItems };
  const next: PlayerEffect[] = !a.passed
    ? []
    : run.done
      ? [{ kind: "post", message: { type: "lesson.done", pin: lesson.pin, steps: lesson.steps.length } }]
      : started(lesson, run.step);
  const keep = !state.keptAhead || run.step > state.keptAhead;
  // A step passed by hand is past what a pending replay would restore.
  const replay = state.replay && run.step === state.replay.step ? state.replay : null;
  return {
    state: { ...state, progress: run.progress, attempt, keptAhead: keep ? 0 : state.keptAhead, replay },
    effects: [{ kind: "log", event: a.event }, { kind: "post", message: told }, ...(keep ? [{ kind: "persist" } as const] : []), ...next],
  };
}

/** The next state and what the mount must do, for one event. */
export function updatePlayer(state: PlayerModel, event: PlayerEvent): Transition {
  switch (event.kind) {
    case "open":
      return open(event.lesson, event.saved, event.startAt);
    case "command":
      return command(state, event.window);
    case "setup-failed":
      return state.lesson ? { state: { ...state, blocked: event.reason }, effects: [] } : { state, effects: [] };
    case "replay":
      return state.lesson && state.replay
        ? { state: { ...state, replay: null }, effects: replaying(state.replay) }
        : { state, effects: [] };
    case "restart": {
      const { lesson } = state;
      if (!lesson) return { state, effects: [] };
      return {
        state: { lesson, progress: { pin: lesson.pin, step: 0, passed: [], failures: 0 }, blocked: null, attempt: null },
        effects: [{ kind: "forget" }, { kind: "persist" }, ...started(lesson, 0), ...setup(lesson)],
      };
    }
    case "close":
      return { state: closedPlayer, effects: [] };
  }
}

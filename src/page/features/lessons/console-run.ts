import { type CommandRecord, type ConsoleTaskResult, type GuestPort, runConsoleTask } from "../../../console";
import type { PageContext } from "../context";

/** Why the lesson player types a command: shown in its task's start event. */
export type LessonAct = "lesson-show-me" | "lesson-demo" | "lesson-setup";

const WORDS: Record<LessonAct, string> = {
  "lesson-show-me": "show me",
  "lesson-demo": "demo",
  "lesson-setup": "setup",
};

/** How long a command's connections may stay open after its end mark before its task ends anyway (as in `npx tab lesson test`). */
const SETTLE_LIMIT_MS = 5_000;

let count = 0;

/**
 * Types one command into the guest console for the lesson ("Show me", a demo step's Run, its
 * setup) as one console task of the act `lesson-step`: one conversation at a time with the
 * scenarios, runs and the tour, waiting for a command already running. The command watcher
 * judges it like any other command.
 */
export function runOnConsole(
  ctx: Pick<PageContext, "log" | "turns">,
  guest: GuestPort,
  command: string,
  act: LessonAct,
  onStarted?: (record: CommandRecord) => void,
): Promise<ConsoleTaskResult> {
  return runConsoleTask(
    { log: ctx.log, turns: ctx.turns, guest },
    {
      id: `lesson-step-${++count}`,
      act: "lesson-step",
      commands: [command],
      startMessage: `${WORDS[act]}: ${command}`,
      settleMs: SETTLE_LIMIT_MS,
      ...(onStarted ? { onStarted } : {}),
    },
  );
}

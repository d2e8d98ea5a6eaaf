import {
  type ConsoleDriver,
  createConsoleTurns,
  type GuestConsole,
  type LateReports,
  runConsoleTask,
  type WatchedCommand,
  watchCommands,
} from "../../console";
import { type CommandWindow, LESSON_SETTLE_MS } from "../../lessons";
import type { EventLog } from "../../log";
import { nodeTimers } from "../node-timers";

/** A command's window (src/lessons: what the judge reads), and whether it ran out of time. */
export interface CommandRun extends CommandWindow {
  /** True when the command had not ended within the time limit: it was interrupted (Ctrl+C). */
  timedOut: boolean;
}

/** How long the shell has to come back after the Ctrl+C that ends a command past its time. */
const INTERRUPT_GRACE_MS = 10_000;

export interface CommandRunner {
  run(command: string, options: { timeoutMs: number; lateReports?: LateReports }): Promise<CommandRun>;
}

export interface CommandRunnerDeps {
  log: EventLog;
  console: GuestConsole;
  driver: ConsoleDriver;
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
}

/**
 * Types commands on the guest console, one at a time, each as one console task (the act
 * `lesson-step`). What the judge reads is the command's window as the page's player reads it:
 * the same command watch (src/console's watchCommands), opened at the command's own start
 * mark and settled within src/lessons' LESSON_SETTLE_MS. A command past its time limit
 * is stopped with Ctrl+C and its window still answered; a shell that does not come back after
 * it is an error.
 */
export function createCommandRunner(deps: CommandRunnerDeps): CommandRunner {
  const { log } = deps;
  const turns = createConsoleTurns();
  const guest = { driver: deps.driver, console: deps.console, writeFile: deps.writeFile };
  let count = 0;
  // What the command now running may still have coming on another line (the kernel's decisions).
  let late: LateReports | null = null;
  // Windows by the shell's record index, as the watch hands them on; a run takes its own.
  const watched = new Map<number, WatchedCommand>();
  const waiting = new Map<number, (window: WatchedCommand) => void>();
  watchCommands(
    deps.console,
    log,
    (window) => {
      const take = waiting.get(window.index);
      if (take) {
        waiting.delete(window.index);
        take(window);
      } else watched.set(window.index, window);
    },
    { settleLimitMs: LESSON_SETTLE_MS, lateReports: () => late, timers: nodeTimers },
  );
  const windowOf = (index: number) =>
    new Promise<WatchedCommand>((resolve) => {
      const ready = watched.get(index);
      if (ready) {
        watched.delete(index);
        resolve(ready);
      } else waiting.set(index, resolve);
    });
  return {
    async run(command, { timeoutMs, lateReports }) {
      late = lateReports ?? null;
      let timedOut = false;
      let started: Promise<WatchedCommand> | null = null;
      const task = await runConsoleTask(
        { log, turns, guest, timers: nodeTimers },
        {
          id: `lesson-step-${++count}`,
          act: "lesson-step",
          commands: [command],
          startMessage: command,
          timeoutMs,
          interruptGraceMs: INTERRUPT_GRACE_MS,
          settleMs: LESSON_SETTLE_MS,
          onStarted: (record) => {
            started = windowOf(record.index);
          },
          conclude: (end) => {
            timedOut = end.how === "timed-out";
            return undefined; // the default words
          },
        },
      );
      const result = task.results[0];
      if (!result || !task.window || started === null) throw new Error(task.message);
      const window: WatchedCommand = await started;
      return {
        command: result.command,
        status: window.status,
        interrupted: window.interrupted,
        output: window.output,
        events: window.events,
        timedOut,
      };
    },
  };
}

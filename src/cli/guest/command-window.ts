import { type ConsoleDriver, createConsoleTurns, type GuestConsole, type LateReports, runConsoleTask } from "../../console";
import type { CommandWindow } from "../../lessons";
import type { EventLog } from "../../log";

/** A command's window (src/lessons: what the judge reads), and whether it ran out of time. */
export interface CommandRun extends CommandWindow {
  /** True when the command had not ended within the time limit: it was interrupted (Ctrl+C). */
  timedOut: boolean;
}

/** How long a command's connections may stay open after its end mark before the window closes anyway. */
const SETTLE_LIMIT_MS = 5_000;
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
 * `lesson-step`): its window on the log is what the judge reads. A command past its time limit
 * is stopped with Ctrl+C and its window still answered; a shell that does not come back after
 * it is an error.
 */
export function createCommandRunner(deps: CommandRunnerDeps): CommandRunner {
  const { log } = deps;
  const turns = createConsoleTurns();
  const guest = { driver: deps.driver, console: deps.console, writeFile: deps.writeFile };
  let count = 0;
  return {
    async run(command, { timeoutMs, lateReports }) {
      let timedOut = false;
      const task = await runConsoleTask(
        { log, turns, guest },
        {
          id: `lesson-step-${++count}`,
          act: "lesson-step",
          commands: [command],
          startMessage: command,
          timeoutMs,
          interruptGraceMs: INTERRUPT_GRACE_MS,
          settleMs: SETTLE_LIMIT_MS,
          ...(lateReports ? { lateReports } : {}),
          conclude: (end) => {
            timedOut = end.how === "timed-out";
            return undefined; // the default words
          },
        },
      );
      const result = task.results[0];
      if (!result || !task.window) throw new Error(task.message);
      const { fromSeq, toSeq } = task.window;
      const events = log.events().filter((e) => e.seq > fromSeq && e.seq < toSeq);
      return { ...result, events, timedOut };
    },
  };
}

import { type ConsoleDriver, connectionsClosed, type GuestConsole } from "../../console";
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
  run(command: string, options: { timeoutMs: number }): Promise<CommandRun>;
}

/**
 * Types commands through the console driver, one at a time, each with its window. This is the
 * console task's job (run a command on the guest console, return its log window) until that
 * lands in src/console; then this becomes a call to it.
 */
export function createCommandRunner(deps: { log: EventLog; console: GuestConsole; driver: ConsoleDriver }): CommandRunner {
  const { log, driver } = deps;
  return {
    async run(command, { timeoutMs }) {
      const fromSeq = log.nextSeq;
      let timedOut = false;
      const running = driver.run(command);
      const timer = setTimeout(() => {
        timedOut = true;
        driver.interrupt();
      }, timeoutMs);
      let result: Awaited<typeof running>;
      try {
        result = await Promise.race([
          running,
          new Promise<never>((_, reject) => {
            // Past the limit and its Ctrl+C grace, the shell is not coming back.
            setTimeout(
              () => reject(new Error(`"${command}" did not end within ${timeoutMs} ms, nor after Ctrl+C`)),
              timeoutMs + INTERRUPT_GRACE_MS,
            ).unref();
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
      await connectionsClosed(log, fromSeq, SETTLE_LIMIT_MS);
      const events = log.events().filter((e) => e.seq >= fromSeq);
      return { ...result, events, timedOut };
    },
  };
}

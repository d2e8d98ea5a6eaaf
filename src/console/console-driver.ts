import { createSerialQueue, deferred } from "../platform";
import type { CommandRecord } from "./shell-state";

/** What a command typed by the page gives back: its output, its exit status from the D mark. */
export interface CommandResult {
  command: string;
  output: string;
  /** Null only if the shell's mark carried none. */
  status: number | null;
  /** 130: ended by SIGINT (a person pressed Ctrl+C). */
  interrupted: boolean;
}

export interface DriverRunOptions {
  /** Aborts while still waiting (for earlier commands, or for a person's command to end); once typed, only Ctrl+C stops it. */
  signal?: AbortSignal;
  /** Called with true when the command has to wait for the shell, false when it is typed. */
  onWaiting?(waiting: boolean): void;
  /** Called once the command is typed (before it ends). */
  onStarted?(record: CommandRecord): void;
}

/** The console operations the driver needs (src/console/serial-console.ts). */
export interface DrivenConsole {
  readonly shell: { readonly idle: boolean };
  whenIdle(signal?: AbortSignal): Promise<void>;
  submit(command: string): CommandRecord;
  finished(record: CommandRecord): Promise<CommandRecord>;
  output(record: CommandRecord): string;
  type(text: string): void;
}

/**
 * The one way the page types into the guest: scenarios, agent runs, replays, the tour and the
 * tests' helper all call `run`. Commands go one after another; each waits until the shell is
 * idle at a prompt (a person's command finishes first), is typed visibly, and resolves on
 * its command-finished mark with its exact output and status.
 */
export interface ConsoleDriver {
  run(command: string, options?: DriverRunOptions): Promise<CommandResult>;
  /** Whether a run is typed or waiting. */
  readonly busy: boolean;
  /** Ctrl+C, as a person would press it. */
  interrupt(): void;
}

export const SIGINT_STATUS = 130;

export function createConsoleDriver(console: DrivenConsole): ConsoleDriver {
  const queue = createSerialQueue();
  let active = 0;

  const aborted = (signal?: AbortSignal) =>
    new Promise<never>((_, reject) => {
      if (!signal) return;
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });

  return {
    async run(command, options = {}) {
      const { signal } = options;
      active++;
      try {
        let waiting = false;
        const wait = (on: boolean) => {
          if (on === waiting) return;
          waiting = on;
          options.onWaiting?.(on);
        };
        if (active > 1 || !console.shell.idle) wait(true);
        // One command at a time, in order; one given up while it waited still keeps its place,
        // and gives it up at once when its turn comes.
        const turnCame = deferred();
        const turn = queue.run(async (): Promise<CommandResult> => {
          turnCame.resolve();
          // Several waiters may wake at the same prompt: check again right before typing.
          while (!console.shell.idle) {
            signal?.throwIfAborted();
            wait(true);
            await console.whenIdle(signal);
          }
          signal?.throwIfAborted();
          wait(false);
          const record = console.submit(command);
          options.onStarted?.(record);
          await console.finished(record);
          const status = record.status;
          return { command, output: console.output(record), status, interrupted: status === SIGINT_STATUS };
        });
        turn.catch(() => undefined); // given up while waiting: its caller heard of it already
        // The signal cancels only the wait; once typed, only Ctrl+C stops a command.
        await Promise.race([turnCame.promise, aborted(signal)]);
        return await turn;
      } finally {
        active--;
      }
    },
    get busy() {
      return active > 0;
    },
    interrupt() {
      console.type("\x03");
    },
  };
}

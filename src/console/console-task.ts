import type { EventLog, ScenarioAct } from "../log";
import { systemTimers, type Timers } from "../platform";
import { connectionsClosed, type LateReports, lateReportArrived } from "./command-settle";
import type { CommandResult } from "./console-driver";
import type { ConsoleTurns } from "./console-turns";
import type { GuestPort } from "./guest-port";
import type { CommandRecord } from "./shell-state";

/** How a console task ended: the phase of its end event. */
export type ConsoleTaskOutcome = "done" | "interrupted" | "failed" | "cancelled";

/** A task's stretch of the log: the seqs of its start and end events; its events lie strictly between. */
export interface LogWindow {
  fromSeq: number;
  toSeq: number;
}

export interface ConsoleTaskResult {
  outcome: ConsoleTaskOutcome;
  /** The commands that ran to their end, in order. */
  results: CommandResult[];
  /** Null when the task never started: cancelled while it waited, nothing on the log. */
  window: LogWindow | null;
  /** The end event's message. */
  message: string;
}

/** How the task's commands ended, for its owner to word (and to judge, for an agent run). */
export type ConsoleTaskEnd =
  | { how: "ran"; results: CommandResult[]; settled: boolean }
  | { how: "interrupted"; results: CommandResult[]; command: string; status: number | null }
  | { how: "timed-out"; results: CommandResult[]; typed: boolean; timeoutMs: number }
  | { how: "failed"; error: Error }
  /** Only for a task whose start was logged before it waited (an agent run). */
  | { how: "cancelled" };

export interface ConsoleTask {
  id: string;
  act: ScenarioAct;
  commands: readonly string[];
  /** The start event's message. */
  startMessage: string;
  /**
   * The seq of a start event the owner logged already (an agent run logs its start before it
   * resolves); by default the start is logged as the first command is typed, after any
   * command a person was running.
   */
  startSeq?: number;
  /** Cancels the task while it still waits for the shell; once typed, only Ctrl+C stops a command. */
  signal?: AbortSignal;
  /** Told true while the task waits for the shell (earlier tasks, a person's command), false once typed or ended. */
  onWaiting?(waiting: boolean): void;
  /** Called once, as the first command is typed, with its record on the shell. */
  onStarted?(record: CommandRecord): void;
  /** Runs inside the task's turn before anything is typed; what it returns is called when the task ended. */
  prepare?(): Promise<(() => void) | undefined> | (() => void) | undefined;
  /** How long the commands may take in all before the task types Ctrl+C and fails (default: no limit). */
  timeoutMs?: number;
  /**
   * With a time limit: how long the command stopped by Ctrl+C has to come back to the prompt.
   * Given, the task waits for it (its result joins `results`, its connections settle); past
   * this grace the shell is not coming back and the task fails. Not given, the task ends at
   * the Ctrl+C.
   */
  interruptGraceMs?: number;
  /** How long the commands' connections may take to close before the task ends anyway (default 30 s). */
  settleMs?: number;
  /** Reports that may come after the end mark on another line (the kernel's decisions); waited for when the last command did not exit 0. */
  lateReports?: LateReports;
  /** Words the end event (and may fail a task whose commands ran); undefined keeps the default, which says the exit status. */
  conclude?(end: ConsoleTaskEnd): { message: string; failed?: boolean } | undefined;
}

export interface ConsoleTaskDeps {
  log: EventLog;
  /** The one queue of conversations with the console. */
  turns: ConsoleTurns;
  guest: GuestPort | Promise<GuestPort>;
  /** The time limits' timers (default: the host's; the Node host passes unref'd ones). */
  timers?: Timers;
}

const SETTLE_LIMIT_MS = 30_000;

/** Resolves undefined after `ms`. */
const delay = (timers: Timers, ms: number) =>
  new Promise<undefined>((resolve) => {
    timers.setTimeout(() => resolve(undefined), ms);
  });

function defaultMessage(end: ConsoleTaskEnd): string {
  switch (end.how) {
    case "ran":
      return `exit status ${end.results.at(-1)?.status ?? null}${end.settled ? "" : " (a connection it opened is still open)"}`;
    case "interrupted":
      return `interrupted: exit status ${end.status} (Ctrl+C) in ${end.command}`;
    case "timed-out":
      return `no end within ${Math.round(end.timeoutMs / 1000)} s`;
    case "failed":
      return end.error.message;
    case "cancelled":
      return "cancelled while waiting for the shell";
  }
}

function outcomeOf(end: ConsoleTaskEnd, failed: boolean | undefined): ConsoleTaskOutcome {
  if (end.how === "interrupted" || end.how === "cancelled") return end.how;
  if (end.how === "ran") return failed ? "failed" : "done";
  return "failed";
}

/**
 * One "run this on the guest's console" task, the way a scenario row, an agent run and a
 * lesson step all do it: wait for the console's turn and an idle shell (cancellable while it
 * waits), type the commands one after another, stop at Ctrl+C, wait until the connections
 * they opened have closed (so their decisions are on the log), and log the task's start and
 * end as `scenario` events. Answers how it ended and its window on the log.
 */
export async function runConsoleTask(deps: ConsoleTaskDeps, task: ConsoleTask): Promise<ConsoleTaskResult> {
  const { log, turns } = deps;
  const timers = deps.timers ?? systemTimers;
  let waiting = false;
  const wait = (on: boolean) => {
    if (on === waiting) return;
    waiting = on;
    task.onWaiting?.(on);
  };
  // Shown at once when something else holds the console; a task that starts now never flickers.
  const guestNow = await Promise.race([Promise.resolve(deps.guest), Promise.resolve(null)]).catch(() => null);
  if (turns.busy || (guestNow !== null && !guestNow.console.shell.idle)) wait(true);

  let fromSeq = task.startSeq ?? null;
  const end = (ended: ConsoleTaskEnd): ConsoleTaskResult => {
    const said = task.conclude?.(ended);
    const message = said?.message ?? defaultMessage(ended);
    const outcome = outcomeOf(ended, said?.failed);
    const results = "results" in ended ? ended.results : [];
    const last = log.append({ kind: "scenario", act: task.act, id: task.id, phase: outcome, message });
    return { outcome, results, window: fromSeq === null ? null : { fromSeq, toSeq: last.seq }, message };
  };
  const cancelled = (): ConsoleTaskResult =>
    fromSeq === null
      ? { outcome: "cancelled", results: [], window: null, message: "cancelled while waiting for the shell" }
      : end({ how: "cancelled" });

  try {
    return await turns.take(async () => {
      if (task.signal?.aborted) return cancelled();
      // The task's own signal: the owner's Cancel, or its time limit before anything was typed.
      const controller = new AbortController();
      const onAbort = () => controller.abort(task.signal?.reason);
      task.signal?.addEventListener("abort", onAbort, { once: true });
      let cleanup: (() => void) | undefined;
      const results: CommandResult[] = [];
      let typed = false;
      let timer: unknown;
      try {
        const guest = await deps.guest;
        cleanup = (await task.prepare?.()) ?? undefined;
        const timedOut = new Promise<"timed-out">((resolve) => {
          if (task.timeoutMs !== undefined) timer = timers.setTimeout(() => resolve("timed-out"), task.timeoutMs);
        });
        for (const command of task.commands) {
          const running = guest.driver.run(command, {
            signal: controller.signal,
            onWaiting: wait,
            onStarted: (record) => {
              wait(false);
              if (typed) return;
              typed = true;
              task.onStarted?.(record);
              if (fromSeq === null)
                fromSeq = log.append({ kind: "scenario", act: task.act, id: task.id, phase: "start", message: task.startMessage }).seq;
            },
          });
          running.catch(() => undefined);
          const result = await Promise.race([running, timedOut]);
          if (result === "timed-out") {
            // Stopped as a person would: Ctrl+C once typed, never typed otherwise.
            if (typed) guest.driver.interrupt();
            else controller.abort(new Error("timed out"));
            const timeoutMs = task.timeoutMs ?? 0;
            if (!typed || task.interruptGraceMs === undefined) return end({ how: "timed-out", results, typed, timeoutMs });
            const back = await Promise.race([running, delay(timers, task.interruptGraceMs)]);
            if (back === undefined)
              return end({ how: "failed", error: new Error(`"${command}" did not end within ${timeoutMs} ms, nor after Ctrl+C`) });
            results.push(back);
            await connectionsClosed(log, fromSeq ?? log.nextSeq, task.settleMs ?? SETTLE_LIMIT_MS, timers);
            return end({ how: "timed-out", results, typed, timeoutMs });
          }
          results.push(result);
          if (result.interrupted) return end({ how: "interrupted", results, command, status: result.status });
        }
        // Its decisions are on the log once the connections its requests opened are closed.
        const settled = await connectionsClosed(log, fromSeq ?? log.nextSeq, task.settleMs ?? SETTLE_LIMIT_MS, timers);
        if (task.lateReports && results.at(-1)?.status !== 0)
          await lateReportArrived(log, fromSeq ?? log.nextSeq, task.lateReports, timers);
        return end({ how: "ran", results, settled });
      } catch (error) {
        if (task.signal?.aborted && !typed) return cancelled();
        return end({ how: "failed", error: error instanceof Error ? error : new Error(String(error)) });
      } finally {
        timers.clearTimeout(timer);
        task.signal?.removeEventListener("abort", onAbort);
        wait(false);
        cleanup?.();
      }
    });
  } finally {
    wait(false);
  }
}

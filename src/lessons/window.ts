import type { LogEvent } from "../log";

/**
 * What one command left: the judge's only input. Any host builds it the same way (the page's
 * command watch, the CLI's headless runner): the command's OSC 133 marks and the log events
 * from its start mark to its settle (its end mark, then its connections closed). Extra fields
 * a host carries (who typed it, a time-out) are ignored.
 */
export interface CommandWindow {
  /** The command line as typed. */
  command: string;
  /** The status from the OSC 133 D mark; null when the mark carried none. */
  status: number | null;
  /** Status 130 after Ctrl+C. */
  interrupted: boolean;
  /** The command's output, marks excluded. */
  output: string;
  events: readonly LogEvent[];
  /** The step's `check` commands, run after this command settled (src/lessons/run-rules.ts, stepChecks). */
  checks?: readonly CheckRun[];
}

/** One `check` command as a host ran it. */
export interface CheckRun {
  /** The check as the lesson wrote it. */
  check: string;
  /** Its exit status; null when it never reported one. */
  status: number | null;
  timedOut: boolean;
  output: string;
}

import type { EventLog, LogEvent } from "../log";
import { createSerialQueue, type Timers } from "../platform";
import { connectionsClosed, type LateReports, lateReportArrived } from "./command-settle";
import { SIGINT_STATUS } from "./console-driver";
import type { CommandRecord, ShellPhase } from "./shell-state";

/**
 * What one command left: its line, how it ended (the OSC 133 end mark), its output, and the
 * log events from its start to its settle (its end mark, then the connections it opened
 * closed). The same shape as the lessons' CommandWindow, so a lesson judges it as is.
 */
export interface WatchedCommand {
  /** The command line as typed (a person's line is read back from the shell's echo). */
  command: string;
  status: number | null;
  /** Status 130: ended by SIGINT (Ctrl+C). */
  interrupted: boolean;
  output: string;
  events: readonly LogEvent[];
  /** Who entered it: a person at the terminal, or the page (scenarios, "Show me", Run). */
  by: CommandRecord["by"];
  /** The shell tracker's record index. */
  index: number;
  /** False when a connection it opened was still open at the settle limit. */
  settled: boolean;
}

/** The console parts the watcher reads (src/console/serial-console.ts's GuestConsole). */
export interface WatchedConsole {
  readonly shell: {
    readonly records: readonly CommandRecord[];
    readonly phase: ShellPhase;
    /** Output text so far (the records' offsets count from the session's start). */
    readonly textLength: number;
    subscribe(listener: () => void): () => void;
  };
  /** The newest output text (marks excluded); it ends at `shell.textLength`. */
  readonly text: string;
  output(record: CommandRecord): string;
}

export interface CommandWatchOptions {
  /** How long a finished command's connections may take to close before its window is handed on anyway. */
  settleLimitMs?: number;
  /** Asked as each command ends: reports that may come after its end mark on another line, waited for when it did not exit 0. */
  lateReports?: () => LateReports | null;
  /** The settle limits' timers (default: the host's). */
  timers?: Timers;
}

export const DEFAULT_SETTLE_LIMIT_MS = 30_000;

/**
 * Watches every command run on the console, whoever typed it, and hands each one's window to
 * `listener`, in the order the commands ran. Returns the function that stops watching
 * (windows already settling are still handed on).
 */
export function watchCommands(
  console: WatchedConsole,
  log: EventLog,
  listener: (window: WatchedCommand) => void,
  options: CommandWatchOptions = {},
): () => void {
  const limit = options.settleLimitMs ?? DEFAULT_SETTLE_LIMIT_MS;
  const { shell } = console;
  let seen = shell.records.length;
  let lastPhase = shell.phase;
  // Where the current prompt's command line starts (just after its command-start mark).
  let lineStart = shell.textLength;
  const open = new Map<CommandRecord, { fromSeq: number; lineStart: number }>();
  // Windows are handed on in the order the commands ran, each once its own settle is done.
  const delivery = createSerialQueue();
  let stopped = false;

  const check = () => {
    const records = shell.records;
    for (; seen < records.length; seen++) {
      const record = records[seen]!;
      // A line entered at a prompt starts where the prompt ended; a pasted line run at the
      // next prompt's mark starts at that mark, which has just arrived.
      const start = lastPhase === "prompt" || lastPhase === "editing" ? lineStart : shell.textLength;
      open.set(record, { fromSeq: log.nextSeq, lineStart: start });
    }
    for (const [record, at] of open) {
      if (!record.finished) continue;
      open.delete(record);
      const base = shell.textLength - console.text.length;
      const echo =
        record.outputStart === null ? "" : console.text.slice(Math.max(0, at.lineStart - base), Math.max(0, record.outputStart - base));
      const command = record.command ?? typedLine(echo);
      const output = console.output(record);
      const late = record.status !== 0 ? (options.lateReports?.() ?? null) : null;
      const settled = (async () => {
        const closed = await connectionsClosed(log, at.fromSeq, limit, options.timers);
        if (late) await lateReportArrived(log, at.fromSeq, late, options.timers);
        return closed;
      })();
      void delivery
        .run(async () => {
          const closed = await settled;
          const toSeq = log.nextSeq;
          const events = log.events().filter((e) => e.seq >= at.fromSeq && e.seq < toSeq);
          listener({
            command,
            status: record.status,
            interrupted: record.status === SIGINT_STATUS,
            output,
            events,
            by: record.by,
            index: record.index,
            settled: closed,
          });
        })
        .catch(() => undefined);
    }
    if (shell.phase === "prompt") lineStart = shell.textLength;
    lastPhase = shell.phase;
  };

  const unsubscribe = shell.subscribe(() => {
    if (!stopped) check();
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}

const CSI = /^\x1b\[([0-9;?]*)([@-~])/;

/**
 * The line a person typed, from what the line editor echoed between the prompt and the
 * Enter: printable characters written at the cursor, Backspace and cursor moves, erase to
 * the end of line, delete characters. Other escapes are dropped.
 */
export function typedLine(echo: string): string {
  const line: string[] = [];
  let cursor = 0;
  for (let i = 0; i < echo.length; i++) {
    const c = echo[i]!;
    if (c === "\n") break;
    if (c === "\x1b") {
      const m = CSI.exec(echo.slice(i));
      if (!m) {
        i++; // a two-character escape
        continue;
      }
      i += m[0].length - 1;
      const n = Math.max(1, Number.parseInt(m[1] ?? "", 10) || 1);
      if (m[2] === "D") cursor = Math.max(0, cursor - n);
      else if (m[2] === "C") cursor = Math.min(line.length, cursor + n);
      else if (m[2] === "K") line.length = Math.min(line.length, cursor);
      else if (m[2] === "P") line.splice(cursor, n);
      continue;
    }
    if (c === "\b") cursor = Math.max(0, cursor - 1);
    else if (c === "\r") cursor = 0;
    else if (c >= " " && c !== "\x7f") {
      line[cursor] = c;
      cursor++;
    }
  }
  return line.join("").trim();
}

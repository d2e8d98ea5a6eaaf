import { createEmitter } from "../platform";
import type { ShellMark } from "./shell-marks";

/**
 * Where the guest's shell is, from its OSC 133 marks (./shell-marks.ts) and from what
 * was typed into it:
 * - `starting`: no prompt yet (booting, or a restored state before its fresh prompt);
 * - `prompt`: a prompt is shown and its command line is empty: the shell is waiting;
 * - `editing`: a person typed at the prompt but has not pressed Enter;
 * - `running`: a command line was entered and has not finished;
 * - `ended`: it finished (the D mark) and the next prompt is being drawn.
 */
export type ShellPhase = "starting" | "prompt" | "editing" | "running" | "ended";

/** One command line entered at a prompt, by a person at the terminal or by the page. */
export interface CommandRecord {
  readonly index: number;
  readonly by: "user" | "page";
  /** What the page typed; null for a person's line (the page does not reconstruct it). */
  readonly command: string | null;
  /** Offsets in the output text (marks excluded), counted from the start of the session. */
  outputStart: number | null;
  outputEnd: number | null;
  /** The exit status from the D mark; null until finished. */
  status: number | null;
  finished: boolean;
}

/** A cursor position report (`ESC[row;colR`): the terminal answering the line editor's query. */
const CURSOR_REPORT = /\x1b\[\d+;\d+R/g;
const LINE_BREAKS = /\r\n|\r|\n/g;

/**
 * The shell's state machine. Output arrives as text and marks, in the order the guest wrote
 * them; input as what the person typed (`userInput`) or a command the page enters (`submit`).
 * Pure: no DOM, no timers; `subscribe` tells the console when something changed.
 */
export class ShellTracker {
  private phaseNow: ShellPhase = "starting";
  private queryPending = false;
  /** Total output text so far: offsets of records count from here. */
  private offset = 0;
  private readonly all: CommandRecord[] = [];
  private current: CommandRecord | null = null;
  /** Lines a person entered at once (a paste) beyond the one running. */
  private queuedLines = 0;
  /** Skipping the echo of the page's command line: printable characters still expected. */
  private echo: { left: number; inEscape: "" | "esc" | "csi"; seenAll: boolean } | null = null;
  /** A person's line: its output starts after the next line break. */
  private awaitingBreak = false;
  /** What a person typed while a command ran: the shell reads it at its next prompt. */
  private readonly ahead = new TypedAhead();
  /** A partial line was typed ahead: once the typed-ahead lines ran, the prompt is being edited. */
  private partialAfterLines = false;
  private readonly listeners = createEmitter();
  /** The number of the last prompt drawn (its D mark's `prompt=`), to tell a redraw from a new prompt. */
  private lastPrompt: number | null = null;
  /** Between a redrawn prompt's D and B marks: the line editor reprints the prompt, then the line. */
  private redrawing = false;

  get phase(): ShellPhase {
    return this.phaseNow;
  }

  /** Idle: at an empty prompt, the line editor's cursor query answered. Only then may the page type. */
  get idle(): boolean {
    return this.phaseNow === "prompt" && !this.queryPending;
  }

  get records(): readonly CommandRecord[] {
    return this.all;
  }

  /** How much output text there has been (the offset the next text starts at). */
  get textLength(): number {
    return this.offset;
  }

  subscribe(listener: () => void): () => void {
    return this.listeners.subscribe(listener);
  }

  private changed(): void {
    this.listeners.emit();
  }

  /** Output text (marks and cursor queries already taken out). */
  text(text: string): void {
    const start = this.offset;
    this.offset += text.length;
    const record = this.current;
    if (!record || record.outputStart !== null || this.redrawing) return;
    if (this.echo) {
      const at = this.skipEcho(text);
      if (at !== null) {
        record.outputStart = start + at;
        this.echo = null;
      }
    } else if (this.awaitingBreak) {
      const at = text.indexOf("\n");
      if (at >= 0) {
        record.outputStart = start + at + 1;
        this.awaitingBreak = false;
      }
    }
  }

  /**
   * The line editor echoes the command (wrapping long lines with CR LF), then a line break
   * when Enter is read; output starts after it. Returns the index in `text` where it starts.
   */
  private skipEcho(text: string): number | null {
    const echo = this.echo!;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (echo.inEscape === "esc") {
        echo.inEscape = c === "[" ? "csi" : "";
        continue;
      }
      if (echo.inEscape === "csi") {
        const code = c.charCodeAt(0);
        if (code >= 0x40 && code <= 0x7e) echo.inEscape = "";
        continue;
      }
      if (c === "\x1b") {
        echo.inEscape = "esc";
        continue;
      }
      if (echo.seenAll) {
        if (c === "\n") return i + 1;
        continue;
      }
      if (c >= " " && c !== "\x7f") {
        echo.left--;
        if (echo.left <= 0) echo.seenAll = true;
      }
    }
    return null;
  }

  mark(mark: ShellMark): void {
    if (this.redrawn(mark)) {
      this.changed();
      return;
    }
    switch (mark.kind) {
      case "output-start":
        if (this.current && this.current.outputStart === null) {
          this.current.outputStart = this.offset;
          this.echo = null;
          this.awaitingBreak = false;
        }
        break;
      case "command-end":
        if (this.phaseNow === "running" && this.current) this.finish(mark.status);
        break;
      case "command-start": {
        // A new prompt (a redrawn one never gets here: redrawn()). Keys typed ahead during the
        // command: whole lines run now (as a paste does), a partial line is on its line.
        this.phaseNow = "prompt";
        const { lines, partial } = this.ahead.take();
        this.queuedLines += lines;
        if (partial) this.partialAfterLines = true;
        // A prompt after a paste's first line: the next line of it runs now.
        if (this.queuedLines > 0) {
          this.queuedLines--;
          this.start("user", null);
        } else if (this.partialAfterLines) {
          this.partialAfterLines = false;
          this.phaseNow = "editing";
        }
        break;
      }
      case "prompt-start":
        break;
    }
    this.changed();
  }

  /**
   * A prompt the line editor redraws (the terminal's size changed: SIGWINCH; or Ctrl+L) repeats
   * the last prompt's number and changes nothing: the phase stays, and a command line the page
   * is typing is echoed again from its start after the redrawn prompt. True when `mark` belongs
   * to such a redraw.
   */
  private redrawn(mark: ShellMark): boolean {
    if (mark.kind === "command-end") {
      if (mark.prompt !== null && mark.prompt === this.lastPrompt) {
        this.redrawing = true;
        return true;
      }
      this.redrawing = false;
      this.lastPrompt = mark.prompt;
      return false;
    }
    if (!this.redrawing) return false;
    if (mark.kind === "command-start") {
      this.redrawing = false;
      const command = this.current?.command ?? null;
      if (this.echo && command !== null) this.echo = { left: command.length, inEscape: "", seenAll: command.length === 0 };
    }
    return true;
  }

  private finish(status: number | null): void {
    const record = this.current!;
    record.outputEnd = this.offset;
    if (record.outputStart === null || record.outputStart > record.outputEnd) record.outputStart = record.outputEnd;
    record.status = status;
    record.finished = true;
    this.current = null;
    this.echo = null;
    this.awaitingBreak = false;
    this.phaseNow = "ended";
  }

  /** The line editor asked where the cursor is (`ESC[6n`); the terminal answers through the input. */
  cursorQuery(): void {
    this.queryPending = true;
    this.changed();
  }

  /** What a person typed at the terminal (including the terminal's own cursor reports). */
  userInput(text: string): void {
    const rest = text.replace(CURSOR_REPORT, "");
    if (rest.length !== text.length) this.queryPending = false;
    if (rest !== "" && (this.phaseNow === "running" || this.phaseNow === "ended")) this.ahead.add(rest);
    else if (rest !== "" && (this.phaseNow === "prompt" || this.phaseNow === "editing")) {
      const lines = rest.match(LINE_BREAKS)?.length ?? 0;
      if (lines > 0) {
        this.queuedLines = lines - 1;
        this.start("user", null);
      }
      // Ctrl+L only redraws the prompt and the line (its repeated number: redrawn()).
      else if (rest !== "\x0c") this.phaseNow = "editing";
    }
    this.changed();
  }

  /** The page enters `command` (one line) at an idle prompt. The caller types it. */
  submit(command: string): CommandRecord {
    if (!this.idle) throw new Error(`the shell is not idle (${this.phaseNow}${this.queryPending ? ", cursor query pending" : ""})`);
    if (/[\r\n]/.test(command)) throw new Error("a command is one line");
    const record = this.start("page", command);
    this.changed();
    return record;
  }

  private start(by: CommandRecord["by"], command: string | null): CommandRecord {
    const record: CommandRecord = {
      index: this.all.length,
      by,
      command,
      outputStart: null,
      outputEnd: null,
      status: null,
      finished: false,
    };
    this.all.push(record);
    this.current = record;
    this.phaseNow = "running";
    this.echo = by === "page" ? { left: command?.length ?? 0, inEscape: "", seenAll: (command?.length ?? 0) === 0 } : null;
    this.awaitingBreak = by === "user";
    return record;
  }
}

/**
 * Keys a person types while a command runs. The terminal is in cooked mode then: the kernel
 * keeps them, Enter ends a line, Backspace and Ctrl+U edit the line being typed, and Ctrl+C
 * (SIGINT) throws everything away. What is left is read by the shell at its next prompt.
 * (A program that reads its input, such as `read`, may take whole lines first; the tracker
 * cannot see that, so such lines still count: the page then waits until the next command ends.)
 */
class TypedAhead {
  private lines = 0;
  private line = "";

  add(text: string): void {
    for (const c of text.replace(/\x1b\[[0-9;?]*[@-~]|\x1b./g, "")) {
      if (c === "\x03") {
        this.lines = 0;
        this.line = "";
      } else if (c === "\r" || c === "\n") {
        this.lines++;
        this.line = "";
      } else if (c === "\x15") this.line = "";
      else if (c === "\x7f" || c === "\b") this.line = this.line.slice(0, -1);
      else if (c >= " ") this.line += c;
    }
  }

  /** What the next prompt gets, and forget it. */
  take(): { lines: number; partial: boolean } {
    const taken = { lines: this.lines, partial: this.line !== "" };
    this.lines = 0;
    this.line = "";
    return taken;
  }
}

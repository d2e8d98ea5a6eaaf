import { createEmitter } from "../platform";
import { createShellMarkSplitter } from "./shell-marks";
import { type CommandRecord, ShellTracker } from "./shell-state";

/** How much output text the console keeps (the newest); older output is dropped. */
const KEEP = 256 * 1024;

/**
 * The guest's serial console as the page sees it: output bytes in, typed text out. The
 * shell's OSC 133 marks (src/console/shell-marks.ts) say where it is (src/console/shell-state.ts):
 * idle at a prompt, or running a command, and how each command ended. They never reach
 * `text`; the terminal gets them too, and its own OSC handler keeps them off the screen.
 */
export class GuestConsole {
  private buffer = "";
  /** Offset of `buffer[0]` in the session's output text (the tracker's offsets). */
  private base = 0;
  private waiters: { pattern: RegExp; from: number; resolve: (m: RegExpExecArray) => void }[] = [];
  private readonly lineListeners = createEmitter<string>();
  private readonly outputListeners = createEmitter<string>();
  private partialLine = "";
  private decoder = new TextDecoder();
  private splitter = createShellMarkSplitter();
  private hidden = false;
  readonly shell = new ShellTracker();
  /** Resolves at the first prompt the console sees (its command-start mark). */
  readonly firstPrompt: Promise<void>;

  constructor(private readonly send: (text: string) => void) {
    this.firstPrompt = this.until(() => this.shell.phase !== "starting").then(() => undefined);
  }

  /** All output text so far, marks excluded (bounded: the newest 256 KiB or so). */
  get text(): string {
    return this.buffer;
  }

  /** Where `waitFor` should start looking to see only output from now on. */
  get mark(): number {
    return this.buffer.length;
  }

  /** Feeds raw guest output. */
  receive(bytes: Uint8Array): void {
    const decoded = this.decoder.decode(bytes, { stream: true });
    if (decoded === "") return;
    let forward = "";
    for (const piece of this.splitter.feed(decoded)) {
      if (piece.type === "text") {
        this.append(piece.text);
        if (!this.hidden) forward += piece.text;
      } else if (piece.type === "mark") {
        // A restored state's terminal starts at its fresh prompt: nothing before it shows.
        if (piece.mark.kind === "prompt-start") this.hidden = false;
        if (!this.hidden) forward += piece.raw;
        this.shell.mark(piece.mark);
      } else {
        // Always forwarded: the terminal must answer the line editor's cursor query.
        forward += piece.raw;
        this.shell.cursorQuery();
      }
    }
    if (forward !== "") this.outputListeners.emit(forward);
    this.checkWaiters();
  }

  private append(text: string): void {
    // Lines first, so a result line is on the log before the mark that ends its command.
    this.partialLine += text;
    const lines = this.partialLine.split(/\r?\n/);
    this.partialLine = lines.pop() ?? "";
    for (const line of lines) this.lineListeners.emit(line);
    this.buffer += text;
    this.shell.text(text);
    if (this.buffer.length > 2 * KEEP) {
      const cut = this.buffer.length - KEEP;
      this.buffer = this.buffer.slice(cut);
      this.base += cut;
      for (const w of this.waiters) w.from = Math.max(0, w.from - cut);
    }
  }

  /** Output for the terminal: the guest's text with its marks, from now on. */
  onOutput(listener: (text: string) => void): () => void {
    return this.outputListeners.subscribe(listener);
  }

  /** Output stops reaching the terminal until the next prompt starts (a restored state's fresh prompt). */
  hideUntilPrompt(): void {
    this.hidden = true;
  }

  private checkWaiters(): void {
    this.waiters = this.waiters.filter((w) => {
      const m = w.pattern.exec(this.buffer.slice(w.from));
      if (m) w.resolve(m);
      return !m;
    });
  }

  /** Resolves with the first match of `pattern` in output after `from` (default: from now). Not for knowing when a command ended: see `finished`. */
  waitFor(pattern: RegExp, from = this.mark): Promise<RegExpExecArray> {
    return new Promise((resolve) => {
      this.waiters.push({ pattern, from, resolve });
      this.checkWaiters();
    });
  }

  /** Calls `listener` with each complete output line (without the line ending). */
  onLine(listener: (line: string) => void): () => void {
    return this.lineListeners.subscribe(listener);
  }

  /** What a person types at the terminal (and the terminal's answers), passed on as is. */
  type(text: string): void {
    this.shell.userInput(text);
    this.send(text);
  }

  /**
   * A restored state's shell sits at a prompt this console never saw: Enter on its empty line
   * draws a fresh one, and the terminal shows only that. Resolves at the fresh prompt.
   */
  requestPrompt(): Promise<void> {
    const prompt = this.expectPrompt();
    this.send("\r");
    return prompt;
  }

  /**
   * As `requestPrompt`, where the Enter reaches the shell another way (the page's emulator worker
   * sends it once it has written the share's files): only the fresh prompt shows. Resolves at it.
   */
  expectPrompt(): Promise<void> {
    this.hidden = true;
    return this.firstPrompt;
  }

  /** Enters one command line at an idle prompt, as typed keys; the record tracks it. */
  submit(command: string): CommandRecord {
    const record = this.shell.submit(command);
    this.send(`${command}\r`);
    return record;
  }

  /** Resolves when `test` holds (checked now and after every change of the shell's state), or rejects on `signal`. */
  until<T>(test: () => T | null | false, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const now = test();
      if (now) return resolve(now);
      if (signal?.aborted) return reject(signal.reason);
      const stop = this.shell.subscribe(() => {
        const got = test();
        if (!got) return;
        stop();
        signal?.removeEventListener("abort", onAbort);
        resolve(got);
      });
      const onAbort = () => {
        stop();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Resolves when the shell is idle at a prompt. */
  whenIdle(signal?: AbortSignal): Promise<void> {
    return this.until(() => this.shell.idle, signal).then(() => undefined);
  }

  /** Resolves with the record once its command finished (its D mark arrived). */
  finished(record: CommandRecord, signal?: AbortSignal): Promise<CommandRecord> {
    return this.until(() => (record.finished ? record : null), signal);
  }

  /** The command's output as printed (carriage returns dropped); what scrolled out of the buffer is lost. */
  output(record: CommandRecord): string {
    if (record.outputStart === null || record.outputEnd === null) return "";
    const from = Math.max(0, record.outputStart - this.base);
    const to = Math.max(0, record.outputEnd - this.base);
    return this.buffer.slice(from, to).replace(/\r/g, "");
  }
}

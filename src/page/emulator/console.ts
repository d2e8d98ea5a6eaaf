/**
 * The guest's serial console as the page sees it: output bytes in, typed text out, and
 * waiting for a pattern in what the guest printed (prompts, result lines).
 */
export interface ConsoleSink {
  write(text: string): void;
}

export class GuestConsole {
  private buffer = "";
  private waiters: { pattern: RegExp; from: number; resolve: (m: RegExpExecArray) => void }[] = [];
  private lineListeners = new Set<(line: string) => void>();
  private partialLine = "";
  private decoder = new TextDecoder();

  constructor(private readonly send: (text: string) => void) {}

  /** All output so far (bounded: the newest 256 KiB). */
  get text(): string {
    return this.buffer;
  }

  /** Where `waitFor` should start looking to see only output from now on. */
  get mark(): number {
    return this.buffer.length;
  }

  /** Feeds raw guest output. */
  receive(bytes: Uint8Array): void {
    const text = this.decoder.decode(bytes, { stream: true });
    if (text === "") return;
    this.buffer += text;
    if (this.buffer.length > 512 * 1024) {
      const cut = this.buffer.length - 256 * 1024;
      this.buffer = this.buffer.slice(cut);
      for (const w of this.waiters) w.from = Math.max(0, w.from - cut);
    }
    this.partialLine += text;
    const lines = this.partialLine.split(/\r?\n/);
    this.partialLine = lines.pop() ?? "";
    for (const line of lines) for (const l of this.lineListeners) l(line);
    this.checkWaiters();
  }

  private checkWaiters(): void {
    this.waiters = this.waiters.filter((w) => {
      const m = w.pattern.exec(this.buffer.slice(w.from));
      if (m) w.resolve(m);
      return !m;
    });
  }

  /** Resolves with the first match of `pattern` in output after `from` (default: from now). */
  waitFor(pattern: RegExp, from = this.mark): Promise<RegExpExecArray> {
    return new Promise((resolve) => {
      this.waiters.push({ pattern, from, resolve });
      this.checkWaiters();
    });
  }

  /** Calls `listener` with each complete output line (without the line ending). */
  onLine(listener: (line: string) => void): () => void {
    this.lineListeners.add(listener);
    return () => this.lineListeners.delete(listener);
  }

  /** Types text into the guest, exactly as a user would. */
  type(text: string): void {
    this.send(text);
  }
}

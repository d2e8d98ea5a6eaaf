import { describe, expect, it } from "vitest";
import { createShellMarkSplitter } from "./shell-marks";
import { ShellTracker } from "./shell-state";

/** Feeds guest output (with its marks) to a tracker, as the console does; returns the text. */
function guest(tracker: ShellTracker) {
  const splitter = createShellMarkSplitter();
  let text = "";
  return {
    out(chunk: string) {
      for (const p of splitter.feed(chunk)) {
        if (p.type === "text") {
          text += p.text;
          tracker.text(p.text);
        } else if (p.type === "mark") tracker.mark(p.mark);
        else tracker.cursorQuery();
      }
    },
    output(index: number) {
      const r = tracker.records[index]!;
      return text.slice(r.outputStart ?? 0, r.outputEnd ?? 0).replace(/\r/g, "");
    },
  };
}
const prompt = (status: number) => `\x1b]133;D;${status}\x07\x1b]133;A\x07guest:~# \x1b]133;B\x07\x1b[6n`;
const REPORT = "\x1b[24;10R";
/** A prompt as the guest's PS1 draws it: its D mark carries the prompt's number. */
const numbered = (status: number, n: number) => `\x1b]133;D;${status};prompt=${n}\x07\x1b]133;A\x07guest:~# \x1b]133;B\x07`;
/** A tracker at the guest's prompt number `n`, idle. */
function atNumberedPrompt(n: number) {
  const tracker = new ShellTracker();
  const g = guest(tracker);
  g.out(`${numbered(0, n)}\x1b[6n`);
  tracker.userInput(REPORT);
  return { tracker, g };
}
/** What busybox's line editor writes on SIGWINCH: back to the line's start, the same prompt, the line so far. */
const redraw = (n: number, line: string) => `\r${numbered(0, n)}${line}\x1b[J`;

function atPrompt() {
  const tracker = new ShellTracker();
  const g = guest(tracker);
  g.out(`banner\r\n${prompt(0)}`);
  tracker.userInput(REPORT);
  return { tracker, g };
}

describe("the shell's state from its marks", () => {
  it("the shell is starting until its first prompt, and idle once the terminal answered the cursor query", () => {
    const tracker = new ShellTracker();
    const g = guest(tracker);
    expect(tracker.phase).toBe("starting");
    g.out("Linux in a tab: 6.12\r\n");
    expect(tracker.idle).toBe(false);
    g.out(prompt(0));
    expect(tracker.phase).toBe("prompt");
    expect(tracker.idle).toBe(false);
    tracker.userInput(REPORT);
    expect(tracker.idle).toBe(true);
  });

  it("the page's command has exactly its output and the status of its D mark, with the echo left out", () => {
    const { tracker, g } = atPrompt();
    const record = tracker.submit("uname -r");
    expect(tracker.idle).toBe(false);
    g.out("uname -r\r\n6.12.117\r\n");
    expect(record.finished).toBe(false);
    g.out(prompt(0));
    expect(record).toMatchObject({ by: "page", command: "uname -r", status: 0, finished: true });
    expect(g.output(0)).toBe("6.12.117\n");
  });

  it("a command line the line editor wrapped still has only its output", () => {
    const { tracker, g } = atPrompt();
    const command = `echo ${"x".repeat(100)}`;
    tracker.submit(command);
    // busybox wraps with CR CR LF at the terminal's width (here 80 with the 9-column prompt).
    g.out(`${command.slice(0, 71)}\r\r\n${command.slice(71)}\r\n${"x".repeat(100)}\r\n${prompt(0)}`);
    expect(g.output(0)).toBe(`${"x".repeat(100)}\n`);
  });

  it("a command line that ends exactly at the right margin has its output right after the wrap", () => {
    const { tracker, g } = atPrompt();
    const command = `echo ${"y".repeat(66)}`; // 9 + 71 = 80 columns
    tracker.submit(command);
    g.out(`${command}\r\r\nout\r\n${prompt(0)}`);
    expect(g.output(0)).toBe("out\n");
  });

  it("output without a final newline ends at the D mark", () => {
    const { tracker, g } = atPrompt();
    tracker.submit("printf abc");
    g.out(`printf abc\r\nabc${prompt(0)}`);
    expect(g.output(0)).toBe("abc");
  });

  it("a command that prints nothing has empty output and its non-zero status", () => {
    const { tracker, g } = atPrompt();
    tracker.submit("false");
    g.out(`false\r\n${prompt(1)}`);
    expect(tracker.records[0]).toMatchObject({ status: 1, finished: true });
    expect(g.output(0)).toBe("");
  });

  it("Ctrl+C during a command ends it with status 130", () => {
    const { tracker, g } = atPrompt();
    const record = tracker.submit("sleep 30");
    g.out("sleep 30\r\n");
    tracker.userInput("\x03");
    g.out(`^C\r\n${prompt(130)}`);
    expect(record).toMatchObject({ status: 130, finished: true });
  });

  it("a person's command keeps the shell busy until its D mark; the next prompt is idle again", () => {
    const { tracker, g } = atPrompt();
    for (const key of "sleep 4") tracker.userInput(key);
    expect(tracker.phase).toBe("editing");
    expect(tracker.idle).toBe(false);
    tracker.userInput("\r");
    expect(tracker.phase).toBe("running");
    g.out("sleep 4\r\n");
    g.out(prompt(0));
    expect(tracker.records[0]).toMatchObject({ by: "user", command: null, status: 0, finished: true });
    expect(tracker.idle).toBe(false);
    tracker.userInput(REPORT);
    expect(tracker.idle).toBe(true);
  });

  it("the page may not type while a person's line is half typed", () => {
    const { tracker } = atPrompt();
    tracker.userInput("ls -");
    expect(tracker.idle).toBe(false);
    expect(() => tracker.submit("true")).toThrow(/not idle/);
  });

  it("Ctrl+C at the prompt throws away a half-typed line: the new prompt is idle", () => {
    const { tracker, g } = atPrompt();
    tracker.userInput("ls -");
    tracker.userInput("\x03");
    g.out(`^C\r\n${prompt(130)}`);
    tracker.userInput(REPORT);
    expect(tracker.idle).toBe(true);
    expect(tracker.records).toEqual([]);
  });

  it("Ctrl+L redraws the prompt with its marks but keeps the half-typed line: still not idle", () => {
    const { tracker, g } = atNumberedPrompt(1);
    tracker.userInput("ls -");
    tracker.userInput("\x0c");
    g.out(`\x1b[H\x1b[J${redraw(1, "ls -")}`);
    expect(tracker.phase).toBe("editing");
  });

  it("Ctrl+L at an empty prompt leaves it idle", () => {
    const { tracker, g } = atNumberedPrompt(1);
    tracker.userInput("\x0c");
    g.out(`\x1b[H\x1b[J${redraw(1, "")}`);
    expect(tracker.idle).toBe(true);
  });

  it("Enter on an empty line is a command with no output, and the shell is idle after it", () => {
    const { tracker, g } = atPrompt();
    tracker.userInput("\r");
    g.out(`\r\n${prompt(0)}`);
    tracker.userInput(REPORT);
    expect(tracker.records[0]).toMatchObject({ finished: true });
    expect(g.output(0)).toBe("");
    expect(tracker.idle).toBe(true);
  });

  it("two pasted lines are two commands: the shell is busy until the second one ends", () => {
    const { tracker, g } = atPrompt();
    tracker.userInput("true\rsleep 1\r");
    g.out(`true\r\n${prompt(0)}`);
    expect(tracker.phase).toBe("running");
    g.out(`sleep 1\r\n${prompt(0)}`);
    tracker.userInput(REPORT);
    expect(tracker.records.map((r) => r.finished)).toEqual([true, true]);
    expect(tracker.idle).toBe(true);
  });

  it("a D mark without a command (the first prompt, a redraw) finishes nothing", () => {
    const { tracker, g } = atPrompt();
    g.out(prompt(5));
    expect(tracker.records).toEqual([]);
  });

  it("the page's command is one line", () => {
    const { tracker } = atPrompt();
    expect(() => tracker.submit("a\nb")).toThrow(/one line/);
  });

  it("keys typed ahead during a command are on the next prompt's line: the page waits for them", () => {
    const { tracker, g } = atPrompt();
    tracker.submit("sleep 4");
    g.out("sleep 4\r\n");
    tracker.userInput("ls -l");
    g.out(`ls -l${prompt(0)}ls -l`);
    tracker.userInput(REPORT);
    expect(tracker.phase).toBe("editing");
    expect(tracker.idle).toBe(false);
    expect(() => tracker.submit("true")).toThrow(/not idle/);
  });

  it("a line typed ahead with Enter runs at the next prompt: busy until its own D mark", () => {
    const { tracker, g } = atPrompt();
    tracker.submit("sleep 4");
    g.out("sleep 4\r\n");
    tracker.userInput("echo ahead\r");
    g.out(`echo ahead\r\n${prompt(0)}`);
    expect(tracker.records[0]).toMatchObject({ by: "page", finished: true });
    expect(tracker.phase).toBe("running");
    g.out(`echo ahead\r\nahead\r\n${prompt(0)}`);
    tracker.userInput(REPORT);
    expect(tracker.records.map((r) => [r.by, r.finished])).toEqual([
      ["page", true],
      ["user", true],
    ]);
    expect(tracker.idle).toBe(true);
  });

  it("keys typed ahead and then erased, or thrown away by Ctrl+C, leave the next prompt idle", () => {
    const { tracker, g } = atPrompt();
    tracker.submit("sleep 4");
    g.out("sleep 4\r\n");
    tracker.userInput("ls");
    tracker.userInput("\x7f\x7f");
    g.out(prompt(0));
    tracker.userInput(REPORT);
    expect(tracker.idle).toBe(true);

    tracker.submit("sleep 4");
    g.out("sleep 4\r\n");
    tracker.userInput("echo lost\rls");
    tracker.userInput("\x03");
    g.out(`^C\r\n${prompt(130)}`);
    tracker.userInput(REPORT);
    expect(tracker.records.at(-1)).toMatchObject({ status: 130 });
    expect(tracker.idle).toBe(true);
  });

  it("a prompt redrawn after a resize (its number repeated) leaves an idle prompt idle", () => {
    const { tracker, g } = atNumberedPrompt(1);
    g.out(redraw(1, ""));
    expect(tracker.idle).toBe(true);
    expect(tracker.records).toEqual([]);
  });

  it("a prompt redrawn while a person types keeps the half-typed line: still not idle", () => {
    const { tracker, g } = atNumberedPrompt(1);
    tracker.userInput("ls -");
    g.out("ls -");
    g.out(redraw(1, "ls -"));
    expect(tracker.phase).toBe("editing");
  });

  it("a prompt redrawn while the page's command is typed neither ends it nor cuts its output", () => {
    const { tracker, g } = atNumberedPrompt(1);
    const record = tracker.submit("echo hi");
    g.out("echo");
    g.out(redraw(1, "echo"));
    expect(record.finished).toBe(false);
    expect(tracker.phase).toBe("running");
    g.out(" hi\r\nhi\r\n");
    g.out(`${numbered(0, 2)}\x1b[6n`);
    expect(record).toMatchObject({ status: 0, finished: true });
    expect(g.output(0)).toBe("hi\n");
  });

  it("a new prompt's number ends the command as before: only a repeated number is a redraw", () => {
    const { tracker, g } = atNumberedPrompt(7);
    const record = tracker.submit("false");
    g.out("false\r\n");
    g.out(`${numbered(1, 8)}\x1b[6n`);
    expect(record).toMatchObject({ status: 1, finished: true });
  });

  it("after a Ctrl+L redraw of a numbered prompt, Ctrl+C's new prompt is idle again", () => {
    const { tracker, g } = atNumberedPrompt(3);
    tracker.userInput("ls -");
    g.out("ls -");
    tracker.userInput("\x0c");
    g.out(`\x1b[H\x1b[J${redraw(3, "ls -")}`);
    expect(tracker.phase).toBe("editing");
    tracker.userInput("\x03");
    g.out(`^C\r\n${numbered(130, 4)}\x1b[6n`);
    tracker.userInput(REPORT);
    expect(tracker.idle).toBe(true);
  });
});

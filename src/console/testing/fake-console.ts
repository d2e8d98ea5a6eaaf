import type { DrivenConsole } from "../console-driver";
import { createShellMarkSplitter } from "../shell-marks";
import { type CommandRecord, ShellTracker } from "../shell-state";

/** What the guest's shell prints when a command ends with `status`: its D mark, then a fresh prompt. */
export const prompt = (status: number) => `\x1b]133;D;${status}\x07\x1b]133;A\x07guest:~# \x1b]133;B\x07`;

/** A console over a tracker whose guest is played by the test: `typed` is what reached it. */
export function fakeConsole() {
  const tracker = new ShellTracker();
  const splitter = createShellMarkSplitter();
  let text = "";
  const typed: string[] = [];
  const out = (chunk: string) => {
    for (const p of splitter.feed(chunk)) {
      if (p.type === "text") {
        text += p.text;
        tracker.text(p.text);
      } else if (p.type === "mark") tracker.mark(p.mark);
    }
  };
  const until = <T>(test: () => T | null | false, signal?: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      const now = test();
      if (now) return resolve(now);
      if (signal?.aborted) return reject(signal.reason);
      const stop = tracker.subscribe(() => {
        const got = test();
        if (got) {
          stop();
          resolve(got);
        }
      });
      signal?.addEventListener("abort", () => {
        stop();
        reject(signal.reason);
      });
    });
  const console: DrivenConsole = {
    shell: tracker,
    whenIdle: (signal) => until(() => tracker.idle, signal).then(() => undefined),
    submit(command) {
      const record = tracker.submit(command);
      typed.push(command);
      return record;
    },
    finished: (record: CommandRecord) => until(() => (record.finished ? record : null)),
    output: (r) => text.slice(r.outputStart ?? 0, r.outputEnd ?? 0).replace(/\r/g, ""),
    type(t) {
      typed.push(t);
      tracker.userInput(t);
    },
  };
  out(prompt(0));
  return { console, tracker, typed, out };
}

import { describe, expect, it } from "vitest";
import { createEventLog } from "../../log";
import { connectConsole } from "./console-link";

/** A terminal whose keys the test presses, and a console that records what reaches the guest. */
function fakes() {
  let press: (text: string) => void = () => {};
  let line: (text: string) => void = () => {};
  const typed: string[] = [];
  return {
    terminal: { onInput: (listener: (text: string) => void) => (press = listener) },
    guestConsole: {
      type: (text: string) => void typed.push(text),
      onLine: (listener: (text: string) => void) => {
        line = listener;
        return () => {};
      },
    },
    press: (text: string) => press(text),
    line: (text: string) => line(text),
    typed,
  };
}

describe("the terminal on the guest's console", () => {
  it("holds the keys pressed before the guest's network is up, and sends them in order once it is", () => {
    const f = fakes();
    const open = connectConsole(f.guestConsole, f.terminal, createEventLog());
    f.press("curl https://");
    f.press("example.org\r");
    expect(f.typed).toEqual([]);
    open();
    expect(f.typed).toEqual(["curl https://", "example.org\r"]);
    f.press("ls\r");
    expect(f.typed).toEqual(["curl https://", "example.org\r", "ls\r"]);
  });

  it("sends nothing twice when it is opened again", () => {
    const f = fakes();
    const open = connectConsole(f.guestConsole, f.terminal, createEventLog());
    f.press("a");
    open();
    open();
    expect(f.typed).toEqual(["a"]);
  });

  it("turns the console's report lines into events from the start", () => {
    const f = fakes();
    const log = createEventLog();
    connectConsole(f.guestConsole, f.terminal, log);
    f.line("landlock abi 6");
    f.line("an ordinary line");
    expect(log.ofKind("kernel.abi").map((e) => e.abi)).toEqual([6]);
  });
});

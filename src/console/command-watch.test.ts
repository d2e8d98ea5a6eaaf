import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { typedLine, type WatchedCommand, watchCommands } from "./command-watch";
import { GuestConsole } from "./serial-console";

const prompt = (status: number) => `\x1b]133;D;${status}\x07\x1b]133;A\x07guest:~# \x1b]133;B\x07\x1b[6n`;
const REPORT = "\x1b[24;10R";
const encoder = new TextEncoder();

/** A guest console fed by hand: what the guest prints, what a person types. */
function fakeGuest() {
  const sent: string[] = [];
  const console = new GuestConsole((text) => sent.push(text));
  const out = (text: string) => console.receive(encoder.encode(text));
  out(`banner\r\n\x1b]133;A\x07guest:~# \x1b]133;B\x07\x1b[6n`);
  console.type(REPORT);
  return { console, out, sent };
}

const conn = (id: string, phase: "open" | "close") =>
  ({ kind: "wire.connection", id, phase, remote: "10.0.2.15:40000", port: 3128, bytesIn: 0, bytesOut: 0 }) as const;
const note = (message: string) => ({ kind: "note", level: "info", source: "test", message }) as const;

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("watching the commands run on the console", () => {
  it("a person's command is handed on with the line they typed, its status, its output and the events logged while it ran", async () => {
    const log = createEventLog();
    const g = fakeGuest();
    const windows: WatchedCommand[] = [];
    watchCommands(g.console, log, (w) => windows.push(w));
    log.append(note("before"));
    g.console.type("ls /tmp");
    g.out("ls /tmp");
    g.console.type("\r");
    g.out("\r\n");
    log.append(note("during"));
    g.out("a b\r\n");
    g.out(prompt(0));
    await flush();
    expect(windows).toHaveLength(1);
    const [w] = windows;
    expect(w).toMatchObject({ command: "ls /tmp", status: 0, interrupted: false, output: "a b\n", by: "user", settled: true });
    expect(w!.events.map((e) => (e.kind === "note" ? e.message : e.kind))).toEqual(["during"]);
  });

  it("a command the page typed is handed on with the command it typed", async () => {
    const log = createEventLog();
    const g = fakeGuest();
    const windows: WatchedCommand[] = [];
    watchCommands(g.console, log, (w) => windows.push(w));
    g.console.submit("false");
    g.out("false\r\n");
    g.out(prompt(1));
    await flush();
    expect(windows).toMatchObject([{ command: "false", status: 1, by: "page", output: "" }]);
  });

  it("a command's window waits for the connections it opened to close, and holds what they logged", async () => {
    const log = createEventLog();
    const g = fakeGuest();
    const windows: WatchedCommand[] = [];
    watchCommands(g.console, log, (w) => windows.push(w));
    g.console.submit("curl https://example.com");
    g.out("curl https://example.com\r\n");
    log.append(conn("c1", "open"));
    g.out("403\r\n");
    g.out(prompt(22));
    await flush();
    expect(windows).toHaveLength(0);
    log.append(note("decided"));
    log.append(conn("c1", "close"));
    await flush();
    expect(windows).toHaveLength(1);
    expect(windows[0]!.events.map((e) => e.kind)).toEqual(["wire.connection", "note", "wire.connection"]);
  });

  it("a connection left open does not hold the window past the settle limit, and the window says so", async () => {
    const log = createEventLog();
    const g = fakeGuest();
    const windows: WatchedCommand[] = [];
    watchCommands(g.console, log, (w) => windows.push(w), { settleLimitMs: 1 });
    g.console.submit("nc -l");
    g.out("nc -l\r\n");
    log.append(conn("kept", "open"));
    g.out(prompt(0));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(windows).toMatchObject([{ command: "nc -l", settled: false }]);
  });

  it("windows are handed on in the order their commands ran, even when an earlier one settles later", async () => {
    const log = createEventLog();
    const g = fakeGuest();
    const windows: WatchedCommand[] = [];
    watchCommands(g.console, log, (w) => windows.push(w));
    g.console.submit("first");
    g.out("first\r\n");
    log.append(conn("slow", "open"));
    g.out(prompt(0));
    g.console.type(REPORT);
    g.console.submit("second");
    g.out("second\r\n");
    g.out(prompt(0));
    await flush();
    expect(windows).toHaveLength(0);
    log.append(conn("slow", "close"));
    await flush();
    expect(windows.map((w) => w.command)).toEqual(["first", "second"]);
  });

  it("Ctrl+C marks the command interrupted (status 130)", async () => {
    const log = createEventLog();
    const g = fakeGuest();
    const windows: WatchedCommand[] = [];
    watchCommands(g.console, log, (w) => windows.push(w));
    g.console.type("sleep 9\r");
    g.out("sleep 9\r\n^C\r\n");
    g.out(prompt(130));
    await flush();
    expect(windows).toMatchObject([{ command: "sleep 9", status: 130, interrupted: true }]);
  });

  it("stopping the watch hands on nothing more", async () => {
    const log = createEventLog();
    const g = fakeGuest();
    const windows: WatchedCommand[] = [];
    const stop = watchCommands(g.console, log, (w) => windows.push(w));
    stop();
    g.console.submit("true");
    g.out("true\r\n");
    g.out(prompt(0));
    await flush();
    expect(windows).toHaveLength(0);
  });
});

describe("the line a person typed, read back from the echo", () => {
  it.each([
    ["plain characters", "echo hi", "echo hi"],
    ["a Backspace that erased a character", "ecko\b\x1b[K\b\x1b[Kho hi", "echo hi"],
    ["a cursor moved left to insert a character", "eho\x1b[2Dcho", "echo"],
    ["a colour escape in the echo", "\x1b[1mls\x1b[0m", "ls"],
    ["nothing after the line break", "ls\r\nfile", "ls"],
  ])("%s", (_, echo, line) => {
    expect(typedLine(echo)).toBe(line);
  });
});

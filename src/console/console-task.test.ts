import { describe, expect, it } from "vitest";
import { createEventLog, type EventLog } from "../log";
import { createConsoleDriver } from "./console-driver";
import { runConsoleTask } from "./console-task";
import { createConsoleTurns } from "./console-turns";
import type { GuestPort } from "./guest-port";
import { fakeConsole, prompt } from "./testing/fake-console";

/** A guest whose console the test plays: `typed` is what reached it, `out` is what it prints. */
function fakeGuest() {
  const { console, tracker, typed, out } = fakeConsole();
  const guest: GuestPort = {
    driver: createConsoleDriver(console),
    console: { shell: tracker, onLine: () => () => undefined },
    writeFile: async () => undefined,
  };
  return { guest, tracker, typed, out };
}
const settle = () => new Promise((r) => setTimeout(r, 0));
const scenarioEvents = (log: EventLog) =>
  log.events().flatMap((e) => (e.kind === "scenario" ? [{ seq: e.seq, act: e.act, id: e.id, phase: e.phase, message: e.message }] : []));

describe("a console task", () => {
  it("types its commands in order, logs its start and end with its act, and answers its window on the log", async () => {
    const { guest, typed, out } = fakeGuest();
    const log = createEventLog();
    const task = runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "row", act: "scenario", commands: ["a", "b"], startMessage: "a && b" },
    );
    await settle();
    expect(typed).toEqual(["a"]);
    out(`a\r\n${prompt(0)}`);
    await settle();
    expect(typed).toEqual(["a", "b"]);
    log.append({ kind: "note", level: "info", source: "test", message: "inside" });
    out(`b\r\nB\r\n${prompt(3)}`);
    const result = await task;
    const events = scenarioEvents(log);
    expect(events.map((e) => [e.act, e.id, e.phase, e.message])).toEqual([
      ["scenario", "row", "start", "a && b"],
      ["scenario", "row", "done", "exit status 3"],
    ]);
    expect(result.outcome).toBe("done");
    expect(result.results.map((r) => [r.command, r.output, r.status])).toEqual([
      ["a", "", 0],
      ["b", "B\n", 3],
    ]);
    expect(result.window).toEqual({ fromSeq: events[0]?.seq, toSeq: events[1]?.seq });
  });

  it("waits while a person's command runs, says so, and a Cancel then types nothing and logs nothing", async () => {
    const { guest, typed, tracker } = fakeGuest();
    const log = createEventLog();
    tracker.userInput("sleep 9\r");
    const controller = new AbortController();
    const waits: boolean[] = [];
    const task = runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "row", act: "scenario", commands: ["true"], startMessage: "true", signal: controller.signal, onWaiting: (w) => waits.push(w) },
    );
    await settle();
    expect(waits).toEqual([true]);
    controller.abort(new Error("cancelled"));
    const result = await task;
    expect(result).toMatchObject({ outcome: "cancelled", window: null });
    expect(waits).toEqual([true, false]);
    expect(typed).toEqual([]);
    expect(scenarioEvents(log)).toEqual([]);
  });

  it("a task whose owner logged its start ends that start as cancelled when cancelled while it waits", async () => {
    const { guest, tracker } = fakeGuest();
    const log = createEventLog();
    tracker.userInput("sleep 9\r");
    const startSeq = log.append({ kind: "scenario", act: "agent-run", id: "run-1", phase: "start", message: "resolving" }).seq;
    const controller = new AbortController();
    const task = runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "run-1", act: "agent-run", commands: ["run"], startMessage: "resolving", startSeq, signal: controller.signal },
    );
    await settle();
    controller.abort(new Error("cancelled"));
    const result = await task;
    const events = scenarioEvents(log);
    expect(events.map((e) => [e.act, e.phase, e.message])).toEqual([
      ["agent-run", "start", "resolving"],
      ["agent-run", "cancelled", "cancelled while waiting for the shell"],
    ]);
    expect(result).toMatchObject({ outcome: "cancelled", window: { fromSeq: startSeq, toSeq: events[1]?.seq } });
  });

  it("a command stopped by Ctrl+C (exit status 130) ends the task as interrupted and the next command is never typed", async () => {
    const { guest, typed, out } = fakeGuest();
    const log = createEventLog();
    const task = runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "row", act: "lesson-step", commands: ["sleep 9", "echo after"], startMessage: "" },
    );
    await settle();
    out(`sleep 9\r\n^C\r\n${prompt(130)}`);
    const result = await task;
    expect(result.outcome).toBe("interrupted");
    expect(typed).toEqual(["sleep 9"]);
    expect(scenarioEvents(log).map((e) => [e.act, e.phase, e.message])).toEqual([
      ["lesson-step", "start", ""],
      ["lesson-step", "interrupted", "interrupted: exit status 130 (Ctrl+C) in sleep 9"],
    ]);
  });

  it("a task past its time limit types Ctrl+C, as a person would, and fails", async () => {
    const { guest, typed } = fakeGuest();
    const log = createEventLog();
    const result = await runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "row", act: "scenario", commands: ["sleep 99"], startMessage: "", timeoutMs: 5 },
    );
    expect(result.outcome).toBe("failed");
    expect(typed).toEqual(["sleep 99", "\x03"]);
    expect(scenarioEvents(log).at(-1)).toMatchObject({ phase: "failed", message: "no end within 0 s" });
  });

  it("given an interrupt grace, a task past its time limit waits for the command Ctrl+C stopped and answers its result", async () => {
    const { guest, typed, out } = fakeGuest();
    const log = createEventLog();
    const task = runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "step", act: "lesson-step", commands: ["sleep 99"], startMessage: "", timeoutMs: 5, interruptGraceMs: 1000 },
    );
    while (typed.length < 2) await new Promise((r) => setTimeout(r, 1));
    expect(typed).toEqual(["sleep 99", "\x03"]);
    out(`^C\r\n${prompt(130)}`);
    const result = await task;
    expect(result.outcome).toBe("failed");
    expect(result.results.map((r) => [r.command, r.status, r.interrupted])).toEqual([["sleep 99", 130, true]]);
    expect(result.window).not.toBeNull();
  });

  it("given an interrupt grace, a task whose shell does not come back after Ctrl+C fails saying so", async () => {
    const { guest } = fakeGuest();
    const log = createEventLog();
    const result = await runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "step", act: "lesson-step", commands: ["sleep 99"], startMessage: "", timeoutMs: 5, interruptGraceMs: 5 },
    );
    expect(result.outcome).toBe("failed");
    expect(result.message).toBe('"sleep 99" did not end within 5 ms, nor after Ctrl+C');
  });

  it("ends only once the connections its commands opened have closed, so their decisions are inside its window", async () => {
    const { guest, out } = fakeGuest();
    const log = createEventLog();
    const task = runConsoleTask(
      { log, turns: createConsoleTurns(), guest },
      { id: "row", act: "scenario", commands: ["curl x"], startMessage: "" },
    );
    await settle();
    log.append({ kind: "wire.connection", id: "c1", phase: "open", remote: "10.0.2.15:4000", port: 8080, bytesIn: 0, bytesOut: 0 });
    out(`curl x\r\n${prompt(0)}`);
    await settle();
    expect(scenarioEvents(log).map((e) => e.phase)).toEqual(["start"]);
    const closed = log.append({
      kind: "wire.connection",
      id: "c1",
      phase: "close",
      remote: "10.0.2.15:4000",
      port: 8080,
      bytesIn: 0,
      bytesOut: 0,
    });
    const result = await task;
    expect(result.outcome).toBe("done");
    expect(closed.seq).toBeLessThan(result.window?.toSeq ?? 0);
  });

  it("a second task waits for the first's turn, and the owner's words and judgement make its end", async () => {
    const { guest, typed, out } = fakeGuest();
    const log = createEventLog();
    const turns = createConsoleTurns();
    const first = runConsoleTask({ log, turns, guest }, { id: "one", act: "scenario", commands: ["a"], startMessage: "" });
    const waits: boolean[] = [];
    const second = runConsoleTask(
      { log, turns, guest },
      {
        id: "two",
        act: "agent-run",
        commands: ["b"],
        startMessage: "",
        onWaiting: (w) => waits.push(w),
        conclude: (end) => (end.how === "ran" ? { message: "no outcome line", failed: true } : undefined),
      },
    );
    await settle();
    expect(typed).toEqual(["a"]);
    expect(waits).toEqual([true]);
    out(`a\r\n${prompt(0)}`);
    expect((await first).outcome).toBe("done");
    await settle();
    expect(typed).toEqual(["a", "b"]);
    out(`b\r\n${prompt(0)}`);
    expect(await second).toMatchObject({ outcome: "failed", message: "no outcome line" });
    expect(waits).toEqual([true, false]);
  });
});

import { describe, expect, it } from "vitest";
import { createEventLog } from "./log";
import { createScenarioWindowTracker, eventsInWindows, scenarioWindows } from "./scenario-windows";

describe("scenario windows on the log", () => {
  it("pairs each task's start with its end by id, in the order they end, even when they overlap", () => {
    const log = createEventLog();
    const runStart = log.append({ kind: "scenario", act: "agent-run", id: "run-1", phase: "start", message: "" }).seq;
    const rowStart = log.append({ kind: "scenario", act: "scenario", id: "served", phase: "start", message: "" }).seq;
    const inside = log.append({ kind: "note", level: "info", source: "test", message: "inside" }).seq;
    const rowEnd = log.append({ kind: "scenario", act: "scenario", id: "served", phase: "done", message: "" }).seq;
    const runEnd = log.append({ kind: "scenario", act: "agent-run", id: "run-1", phase: "failed", message: "" }).seq;
    const windows = scenarioWindows(log.events());
    expect(windows).toEqual([
      { id: "served", act: "scenario", phase: "done", fromSeq: rowStart, toSeq: rowEnd },
      { id: "run-1", act: "agent-run", phase: "failed", fromSeq: runStart, toSeq: runEnd },
    ]);
    expect(eventsInWindows(log.events(), windows.slice(0, 1)).map((e) => e.seq)).toEqual([inside]);
  });

  it("an end without its start on the log opens no window, and the tracker says whether a task is running", () => {
    const log = createEventLog();
    const tracker = createScenarioWindowTracker();
    expect(tracker.feed(log.append({ kind: "scenario", act: "scenario", id: "x", phase: "cancelled", message: "" }))).toBeNull();
    tracker.feed(log.append({ kind: "scenario", act: "scenario", id: "y", phase: "start", message: "" }));
    expect(tracker.running).toBe(true);
    expect(tracker.feed(log.append({ kind: "scenario", act: "scenario", id: "y", phase: "done", message: "" }))?.id).toBe("y");
    expect(tracker.running).toBe(false);
  });

  it("a scenario event from a log written before acts were named reads as the act scenario", async () => {
    const { NewEvent } = await import("./event");
    expect(NewEvent.parse({ kind: "scenario", id: "served", phase: "done", message: "" })).toMatchObject({ act: "scenario" });
  });
});

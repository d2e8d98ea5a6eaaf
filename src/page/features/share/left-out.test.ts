import { describe, expect, it } from "vitest";
import { createEventLog, type NewEvent, scenarioWindows } from "../../../log";
import { describeLeftOut, leftOutOfLink } from "./left-out";

const decision = (target: string, code: "served" | "host-not-allowed"): NewEvent => ({
  kind: "proxy.decision",
  id: target,
  mode: "tunnel",
  method: "GET",
  target,
  status: code === "served" ? 200 : 403,
  bytes: 0,
  durationMs: 1,
  allowed: code === "served",
  code,
  reason: code,
  by: "proxy",
});
const mark = (id: string, phase: "start" | "done"): NewEvent => ({ kind: "scenario", act: "scenario", id, phase, message: "" });

describe("the share card lists what the link will not replay", () => {
  it("counts the verdicts of commands typed by hand, outside every row the link replays, and names a few", () => {
    const log = createEventLog({ clock: () => 1 });
    for (const e of [
      decision("https://typed.example/a", "host-not-allowed"),
      mark("served", "start"),
      decision("https://api.github.com/zen", "served"),
      mark("served", "done"),
      decision("https://typed.example/b", "served"),
    ])
      log.append(e);
    const left = leftOutOfLink(log.events(), scenarioWindows(log.events()));
    expect(left).toEqual({
      verdicts: 2,
      examples: ["GET https://typed.example/a  host-not-allowed", "GET https://typed.example/b  served"],
    });
    expect(describeLeftOut(left)).toMatch(/^Not in this link: 2 verdicts from commands typed by hand/);
  });

  it("says nothing when every verdict is in a replayed row", () => {
    const log = createEventLog({ clock: () => 1 });
    for (const e of [mark("served", "start"), decision("https://api.github.com/zen", "served"), mark("served", "done")]) log.append(e);
    expect(describeLeftOut(leftOutOfLink(log.events(), scenarioWindows(log.events())))).toBe("");
  });
});

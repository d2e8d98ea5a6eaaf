import { describe, expect, it } from "vitest";
import { advance, loadProgress, saveProgress, TOUR_START } from "./progress";
import { TOUR_STEPS } from "./steps";

// Tour progress is saved locally and survives a reload; storage is outside input.
describe("stored tour progress is parsed, never trusted", () => {
  it("a browser that never started the tour has no progress and no problem", () => {
    expect(loadProgress(null, TOUR_STEPS)).toEqual({ progress: null, problem: null });
  });

  it.each([
    ["at step 3", { stepIndex: 2, finished: false }],
    ["finished", { stepIndex: 3, finished: true }],
    ["at the start", TOUR_START],
  ])("saved progress %s reads back the same", (_name, progress) => {
    expect(loadProgress(saveProgress(progress, TOUR_STEPS), TOUR_STEPS)).toEqual({ progress, problem: null });
  });

  it("stores the step by id, under version 1", () => {
    expect(JSON.parse(saveProgress({ stepIndex: 1, finished: false }, TOUR_STEPS))).toEqual({
      version: 1,
      step: "ip-literal",
      finished: false,
    });
  });

  it.each([
    ["text that is not JSON", "{not json", /not valid JSON/],
    ["JSON of another shape", '{"step": 2}', /expected shape/],
    ["a future version", '{"version": 2, "step": "dns", "finished": false}', /expected shape/],
    ["a step the tour does not have", '{"version": 1, "step": "teleport", "finished": false}', /does not have \(teleport\)/],
    ["a JSON null", "null", /expected shape/],
  ])("%s resets to step 1 with a note", (_name, text, problem) => {
    const loaded = loadProgress(text, TOUR_STEPS);
    expect(loaded.progress).toEqual(TOUR_START);
    expect(loaded.problem).toMatch(problem);
    expect(loaded.problem).toMatch(/starts again at step 1/);
  });
});

describe("passing a step advances to the next, and the last one finishes the tour", () => {
  it.each([
    ["step 1 → step 2", { stepIndex: 0, finished: false }, { stepIndex: 1, finished: false }],
    ["step 3 → step 4", { stepIndex: 2, finished: false }, { stepIndex: 3, finished: false }],
    ["step 4 → finished", { stepIndex: 3, finished: true }, { stepIndex: 3, finished: true }],
    ["the last step → finished", { stepIndex: 3, finished: false }, { stepIndex: 3, finished: true }],
  ])("%s", (_name, from, to) => {
    expect(advance(from, TOUR_STEPS)).toEqual(to);
  });
});

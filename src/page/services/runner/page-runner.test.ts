import { describe, expect, it } from "vitest";
import type { GuestPort } from "../../../console";
import { runnerDeps } from "../../../runner/testing/deps";
import { createPageRunner, type PageRunnerDeps, type RunnerState } from "./page-runner";

function deps(guest: Promise<GuestPort>): PageRunnerDeps {
  const { scripts: _bundled, ...run } = runnerDeps(guest);
  return { ...run, turns: { take: (task) => task() } as PageRunnerDeps["turns"], defaultHarness: () => "demo" };
}

describe("the page's one runner", () => {
  it("runs one at a time: a second run while one is in progress is refused", async () => {
    const runner = createPageRunner(deps(new Promise<GuestPort>(() => undefined)));
    void runner.run();
    await expect(runner.run()).rejects.toThrow("a run is already in progress");
  });

  it("tells its listeners the harness it runs (the default when none is given) and how the run failed, on the log too", async () => {
    const d = deps(Promise.reject(new Error("the guest did not start")));
    const runner = createPageRunner(d);
    const states: RunnerState[] = [];
    runner.subscribe((state) => states.push(state));
    await expect(runner.run()).rejects.toThrow("the guest did not start");
    expect(states).toEqual([
      { phase: "running", harness: "demo" },
      { phase: "failed", message: "the guest did not start" },
    ]);
    expect(d.log.events().some((e) => e.kind === "runner.step" && e.message === "run failed: the guest did not start")).toBe(true);
    // The next run is allowed once the last one ended.
    await expect(runner.run({ harness: "sample" })).rejects.toThrow("the guest did not start");
  });
});

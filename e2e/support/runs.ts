import type { Page } from "@playwright/test";
import type { RunOptions, RunResult } from "../../src/page/services/types";

/** What `window.__tab.features.runner.run()` answers (src/runner/run.ts). */
export type { RunResult };

/** What a test may pass to a run from outside the page: its options that cross `page.evaluate` (no callbacks). */
export type AgentRunOptions = Omit<RunOptions, "signal" | "onWaiting" | "whileRunning">;

/** Runs an agent through the page's runner feature, exactly as the "Run agent" button does. */
export async function runAgent(page: Page, options: AgentRunOptions): Promise<RunResult> {
  return page.evaluate(async (o) => {
    const runner = window.__tab?.features.runner;
    if (!runner) throw new Error("no runner feature");
    return runner.run(o);
  }, options);
}

/** The guest's step lines of a run whose fields match all of `fields`. */
export const stepLines = (result: Pick<RunResult, "lines">, fields: Record<string, string>) =>
  result.lines.filter((l) => Object.entries(fields).every(([k, v]) => l.fields[k] === v));

export const nextSeq = (page: Page) => page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
export const consoleText = (page: Page) => page.evaluate(() => window.__tab?.guest?.console.text ?? "");

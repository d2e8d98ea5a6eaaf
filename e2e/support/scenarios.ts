// Waiting for a scenario (a verdict-table row, a tour step, an agent run) to end, read from the
// page's own log: one wait for every spec, so "ended" means the same thing everywhere.
import type { Page } from "@playwright/test";
import type { EventOf } from "../../src/log";

/** A scenario's end as logged: any phase but `start`. */
export type ScenarioEnd = Pick<EventOf<"scenario">, "seq" | "id" | "message"> & {
  phase: Exclude<EventOf<"scenario">["phase"], "start">;
};

/**
 * Waits for the first scenario matching `id` to end after log position `from`, and returns that
 * end. `id` is a scenario's id, or `"run-*"` for the next agent run (whose id the page picks).
 * `timeoutMs` 0 waits without a limit (the test's own timeout still applies).
 */
export async function scenarioEnded(page: Page, id: string, from: number, timeoutMs = 120_000): Promise<ScenarioEnd> {
  const handle = await page.waitForFunction(
    ({ id, from }) => {
      const matches = (e: string) => (id.endsWith("*") ? e.startsWith(id.slice(0, -1)) : e === id);
      const end = window.__tab?.log.events().find((e) => e.seq >= from && e.kind === "scenario" && matches(e.id) && e.phase !== "start");
      return end?.kind === "scenario" ? { seq: end.seq, id: end.id, phase: end.phase, message: end.message } : undefined;
    },
    { id, from },
    { timeout: timeoutMs },
  );
  return (await handle.jsonValue()) as ScenarioEnd;
}

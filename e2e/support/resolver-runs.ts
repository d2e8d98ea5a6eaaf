import type { Page } from "@playwright/test";

/** One resolver step as the specs read it from the log. */
export interface ResolverStepSummary {
  id: number;
  field: string;
  code: string;
  allowed: boolean;
  reason: string;
  cache: string;
  url: string | null;
  pin: string | null;
  sha256: string | null;
}

/** A finished resolve: its run id, how it ended, and its steps in log order. */
export interface ResolverRunSummary {
  run: string;
  phase: string;
  harness: string;
  steps: ResolverStepSummary[];
}

/** Waits for the first resolve that starts at or after `from` to end; returns its steps from the log. */
export async function resolverRunAfter(page: Page, from: number): Promise<ResolverRunSummary> {
  const handle = await page.waitForFunction(
    (from) => {
      const runs = window.__tab?.log.ofKind("resolver.run").filter((e) => e.seq >= from) ?? [];
      const start = runs.find((e) => e.phase === "start");
      const end = start && runs.find((e) => e.run === start.run && (e.phase === "done" || e.phase === "failed"));
      return end ? { run: end.run, phase: end.phase, harness: end.harness } : null;
    },
    from,
    // The page boots the guest meanwhile (on the main thread): a resolve can take a while.
    { timeout: 180_000, polling: 500 },
  );
  const ended = (await handle.jsonValue()) as { run: string; phase: string; harness: string };
  const steps = await page.evaluate(
    (run) =>
      (window.__tab?.log.ofKind("resolver.step") ?? [])
        .filter((e) => e.run === run)
        .map((e) => ({
          id: e.id ?? -1,
          field: e.field,
          code: e.code,
          allowed: e.allowed,
          reason: e.reason,
          cache: e.cache,
          url: e.url ?? null,
          pin: e.pin,
          sha256: e.sha256 ?? null,
        })),
    ended.run,
  );
  return { ...ended, steps };
}

import { createHash } from "node:crypto";
import type { BrowserContext, Page } from "@playwright/test";
import { upstream } from "./upstreams";

/** Under the sample bundle's org allowlist, so the page may fetch a lesson from there. */
export const LESSON_BASE = "https://raw.githubusercontent.com/example-org/agent-library/main/lessons/";

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The link that loads a published lesson, pinned with the sha256 of its bytes. */
export const lessonLink = (url: string, pin: string, extra = "") => `./?lesson=${encodeURIComponent(`${url}#sha256=${pin}`)}${extra}`;

/** Serves `text` at `url` (and its CORS preflight) through Playwright routing: no network. */
export async function serveLesson(context: BrowserContext, url: string, text: string): Promise<void> {
  await context.route(url, upstream(200, { "content-type": "application/yaml" }, text));
}

/** The lesson events on the page's log, as short strings ("load url 3", "step 1 failed"). */
export const lessonEvents = (page: Page) =>
  page.evaluate(() =>
    (window.__tab?.log.events() ?? []).flatMap((e) => {
      if (e.kind === "lesson.load") return [e.code ? `refused ${e.code}` : `load ${e.source} ${e.steps}`];
      if (e.kind === "lesson.step") return [`step ${e.step} ${e.result}`];
      return [];
    }),
  );

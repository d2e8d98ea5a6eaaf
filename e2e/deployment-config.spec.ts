import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { closePlayground, openPlayground } from "./support/guest";
import { lessonEvents, lessonLink, serveLesson, sha256 } from "./support/lessons";
import { upstream } from "./support/upstreams";

// A docs author who hosts the playground names their lesson host once, in tab.config.json beside
// the page (README, "Publishing"): every fresh reader then loads their pinned lessons, with no
// editing of the Resolver panel. Without the file a lesson from that host is not-allowlisted.
const LESSON_URL = "https://docs.example/lessons/tour.yaml";
const TEXT = readFileSync("lessons/01-tour.yaml", "utf8");
const PIN = sha256(TEXT);

test("a fresh reader of a deployment whose tab.config.json names the lesson host loads its pinned lesson", async ({ browser }) => {
  test.setTimeout(360_000);
  const base = test.info().project.use.baseURL ?? "http://127.0.0.1:4399/";
  const config = { version: 1, lessonOrigins: ["https://docs.example/lessons/"] };
  const opened = await openPlayground(browser, lessonLink(LESSON_URL, PIN), {
    refuseUnplanned: true,
    setup: async (context) => {
      await context.route(`${base}tab.config.json`, upstream(200, { "content-type": "application/json" }, JSON.stringify(config)));
      await serveLesson(context, LESSON_URL, TEXT);
    },
  });
  try {
    await expect.poll(() => lessonEvents(opened.page), { timeout: 60_000 }).toEqual(["load url 4"]);
    await expect(opened.page.getByTestId("lesson-run")).toHaveAttribute("data-step", "1");
  } finally {
    await closePlayground(opened);
  }
});

test("without tab.config.json the same lesson is refused not-allowlisted (the bundled default)", async ({ browser }) => {
  test.setTimeout(360_000);
  const opened = await openPlayground(browser, lessonLink(LESSON_URL, PIN), {
    refuseUnplanned: true,
    setup: (context) => serveLesson(context, LESSON_URL, TEXT),
  });
  try {
    await expect.poll(() => lessonEvents(opened.page), { timeout: 60_000 }).toEqual(["refused not-allowlisted"]);
  } finally {
    await closePlayground(opened);
  }
});

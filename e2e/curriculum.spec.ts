import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, waitForGuest } from "./support/guest";
import { LESSON_BASE, lessonLink, serveLesson, sha256 } from "./support/lessons";
import { refuseUnplanned, routeZen, upstream } from "./support/upstreams";

// The shipped curriculum on a fresh browser: every step of every shipped lesson passes by Show
// me, with no other feature run first (lesson 06 once relied on the verdict table's row 8 to
// fill the demo vault), and a reload mid-lesson brings the guest back: the player replays the
// setup and the earlier steps' commands (shipped lessons replay at once) and Show me passes the
// step again. One context for the file; each lesson opens from the index's API (no page load),
// then is reloaded at every step past the first (its link, with the progress this browser
// kept): each step passes once by Show me, and every step after the first right after a reload
// there (about two minutes on chromium). TAB_CURRICULUM_RELOADS=last reloads only at each
// lesson's last step. Last, a lesson from a link: its resume waits for the reader's click.
// Nothing reaches the internet: Playwright answers the upstreams the lessons use.
test.describe.configure({ mode: "serial" });

interface Shipped {
  name: string;
  steps: number;
}
const INDEX = JSON.parse(readFileSync(join(import.meta.dirname, "..", "lessons", "index.json"), "utf8")) as { lessons: Shipped[] };
const EVERY = process.env.TAB_CURRICULUM_RELOADS !== "last";

let pg: Playground;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser, "./");
  await refuseUnplanned(pg.context);
  await routeZen(pg.context, "Design for failure.");
  // Row 3 of the verdict table: api.github.com answers the tarball with a redirect to another host.
  await pg.context.route(
    "https://api.github.com/repos/octocat/Hello-World/tarball",
    upstream(302, { location: "https://codeload.github.com/octocat/Hello-World/legacy.tar.gz/refs/heads/master" }, ""),
  );
});
test.afterAll(async () => {
  await closePlayground(pg);
});

/** Waits for the lesson the page opened (from its link or the API) and for its setup or replay typing to end. */
async function settled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const lessons = window.__tab?.features.lessons;
    await lessons?.opened;
    await lessons?.setupDone();
  });
}

/** Presses Show me on `step` (from 1) and waits for the player to pass it; fails with what the player said otherwise. */
async function showMe(page: Page, name: string, step: number, steps: number): Promise<void> {
  const run = page.getByTestId("lesson-run");
  await expect(run).toHaveAttribute("data-step", String(step));
  await expect(page.getByTestId("lesson-show-me")).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId("lesson-show-me").click();
  const next = step < steps ? { attr: "data-step", value: String(step + 1) } : { attr: "data-done", value: "true" };
  try {
    await expect(run).toHaveAttribute(next.attr, next.value, { timeout: 90_000 });
  } catch {
    const said = await page
      .getByTestId("lesson-attempt")
      .textContent({ timeout: 1_000 })
      .catch(() => "no attempt was judged");
    throw new Error(`${name} step ${step} did not pass by Show me: ${said}`);
  }
  await expect(page.getByTestId("lesson-attempt")).toHaveAttribute("data-result", "passed");
}

/** Reloads the lesson's link with the progress this browser kept, at `step`: the player replays, then the step is shown. */
async function reloadAt(page: Page, name: string, step: number): Promise<void> {
  await page.goto(`./?lesson=${name}`);
  await waitForGuest(page);
  await expect(page.getByTestId("lesson-run")).toHaveAttribute("data-step", String(step));
  // A shipped lesson replays at once, visibly, with a line saying so (no button to press).
  await expect(page.getByTestId("lesson-card")).toContainText(`Resuming at step ${step}`);
  await expect(page.getByTestId("lesson-replay")).toHaveCount(0);
  await settled(page);
}

for (const { name, steps } of INDEX.lessons) {
  const reloads = EVERY ? new Set(Array.from({ length: steps - 1 }, (_, i) => i + 2)) : new Set(steps > 1 ? [steps] : []);
  test(`${name}: every step passes by Show me, and again after a reload at step ${[...reloads].join(", ")}`, async () => {
    test.setTimeout(120_000 + steps * (EVERY ? 150_000 : 60_000));
    const page = pg.page;
    await page.evaluate((n) => window.__tab?.features.lessons?.open(n), name);
    await settled(page);
    for (let step = 1; step <= steps; step++) {
      if (reloads.has(step)) await reloadAt(page, name, step);
      await showMe(page, name, step, steps);
    }
    await expect(page.getByTestId("lesson-done")).toBeVisible();
  });
}

// No setup, no policy, no check: it needs no card, yet its replay types commands a stranger wrote.
const LINK_LESSON = `lesson: 1
title: Leave a note, read it back
steps:
  - title: Leave a note
    run: mkdir -p /tmp/replay-demo && echo left-by-step-1 > /tmp/replay-demo/note
    expect:
      - exit: 0
  - title: Read it back
    run: cat /tmp/replay-demo/note
    expect:
      - exit: 0
      - output: left-by-step-1
`;
const LINK_URL = `${LESSON_BASE}replay-demo.yaml`;

test("a lesson from a link, reloaded at step 2, types nothing until the reader presses Replay, which lists its commands", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  await serveLesson(pg.context, LINK_URL, LINK_LESSON);
  const link = lessonLink(LINK_URL, sha256(LINK_LESSON));
  await page.goto(link);
  await waitForGuest(page);
  await settled(page);
  await showMe(page, "the link lesson", 1, 2);

  await page.goto(link);
  await waitForGuest(page);
  await settled(page);
  await expect(page.getByTestId("lesson-run")).toHaveAttribute("data-step", "2");
  await expect(page.getByTestId("lesson-card")).toContainText("came from a link");
  await expect(page.getByTestId("lesson-replay-commands").locator("li")).toHaveText([
    "mkdir -p /tmp/replay-demo && echo left-by-step-1 > /tmp/replay-demo/note",
  ]);
  const replay = page.getByTestId("lesson-replay");
  await expect(replay).toHaveText("Replay 1 command to restore step 2");
  // Nothing was typed for the lesson since the reload: the guest has no note.
  const typed = () =>
    page.evaluate(
      () => (window.__tab?.log.ofKind("scenario") ?? []).filter((e) => e.phase === "start" && e.message.startsWith("setup:")).length,
    );
  expect(await typed()).toBe(0);

  await replay.click();
  await expect(replay).toHaveCount(0);
  await settled(page);
  expect(await typed()).toBe(1);
  await showMe(page, "the link lesson", 2, 2);
});

import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { answerLinkCard } from "./support/consent";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, typeAndWait } from "./support/guest";
import { LESSON_BASE, lessonEvents, lessonLink, serveLesson, sha256 } from "./support/lessons";

// A `check:` step in the real page: the check runs after the learner's command, as its own
// console task, and the step passes only when the state it checks is there.
test.describe.configure({ mode: "serial" });

const LESSON = `lesson: 1
title: Leave a note
steps:
  - title: Write the note
    text: Leave a non-empty file at \`/tmp/e2e-note\`.
    run: echo hi > /tmp/e2e-note
    expect:
      - check: test -s /tmp/e2e-note
    hint: The file must exist and not be empty.
`;
const URL_ = `${LESSON_BASE}leave-a-note.yaml`;

let context: BrowserContext;
let page: Page;
test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS + 60_000);
  ({ context, page } = await openPlayground(browser, lessonLink(URL_, sha256(LESSON)), {
    refuseUnplanned: true,
    setup: (c) => serveLesson(c, URL_, LESSON),
  }));
  // Its check: types a command after the reader's own: a lesson from a URL asks first (decision 0028).
  await expect(page.getByTestId("consent-card").getByTestId("consent-checks")).toContainText("test -s /tmp/e2e-note");
  await answerLinkCard(page);
});
test.afterAll(async () => {
  await closePlayground(context ? { context, page } : undefined);
});

test("a check step fails while the state is missing and passes once the learner left it", async () => {
  test.setTimeout(240_000);
  const run = page.getByTestId("lesson-run");
  await expect(run).toHaveAttribute("data-step", "1");
  await typeAndWait(page, "rm -f /tmp/e2e-note; true");
  const attempt = page.getByTestId("lesson-attempt");
  await expect(attempt).toHaveAttribute("data-result", "failed", { timeout: 90_000 });
  await expect(attempt).toContainText("the check `test -s /tmp/e2e-note` exited 1");
  await typeAndWait(page, "echo hi > /tmp/e2e-note");
  await expect(page.getByTestId("lesson-done")).toBeVisible({ timeout: 90_000 });
  expect(await lessonEvents(page)).toEqual(["load url 1", "step 1 failed", "step 1 passed"]);
});

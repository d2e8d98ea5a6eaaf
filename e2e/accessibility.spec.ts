import { createRequire } from "node:module";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { closePlayground, openPlayground, waitForGuest } from "./support/guest";

// The page's four faces checked by axe-core (WCAG 2 A/AA and axe's best practices, its
// defaults) once each is drawn and its guest is up: the playground, the embed view a docs site
// shows in an iframe, the guided tour, and a shipped lesson. Zero violations, each listed by
// rule, element and help when there are any. One context; each face is a page load that
// restores the suite's kept guest state (not serial: one face failing still checks the others).

const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

let context: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  // Each face loads its own page in this context, restoring the suite's kept guest state.
  ({ context, page } = await openPlayground(browser, null, { refuseUnplanned: true }));
});
test.afterAll(async () => {
  await closePlayground(context ? { context, page } : undefined);
});

/** Loads `path`, waits for the guest and for `ready`, and returns axe's violations, one readable line each. */
async function violationsOf(path: string, ready: (page: Page) => Promise<void>): Promise<string[]> {
  await page.goto(path);
  await waitForGuest(page);
  await ready(page);
  await page.addScriptTag({ path: AXE_SOURCE });
  const results = await page.evaluate(() => {
    if (!window.axe) throw new Error("axe-core did not load");
    return window.axe.run(document, { resultTypes: ["violations"] });
  });
  return results.violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact ?? "?"}): ${n.target.join(" ")}: ${v.help}; ${n.failureSummary ?? ""}`),
  );
}

test("the playground has no accessibility violations", async () => {
  const found = await violationsOf("./", async (p) => {
    await expect(p.locator('[data-tab="proxy"]')).toBeVisible();
  });
  expect(found).toEqual([]);
});

test("the embed view of a scenario has no accessibility violations", async () => {
  await page.setViewportSize({ width: 800, height: 500 });
  const found = await violationsOf("./?embed=1&scenario=2", async (p) => {
    await expect(p.getByRole("button", { name: /run/i }).first()).toBeVisible();
  });
  await page.setViewportSize({ width: 1280, height: 720 });
  expect(found).toEqual([]);
});

test("the guided tour (the tour lesson in the lesson player) has no accessibility violations", async () => {
  const found = await violationsOf("./?tour=1", async (p) => {
    await expect(p.getByTestId("lesson-step")).toBeVisible();
    await expect(p.getByTestId("lesson-card")).toContainText("The tour");
  });
  expect(found).toEqual([]);
});

test("a shipped lesson has no accessibility violations", async () => {
  const found = await violationsOf("./?lesson=03-landlock-files", async (p) => {
    await expect(p.getByTestId("lesson-step")).toBeVisible();
  });
  expect(found).toEqual([]);
});

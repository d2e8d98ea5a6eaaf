import { expect, test } from "@playwright/test";
import { openPlayground, waitForGuest } from "./support/guest";

// A docs page that embeds step 1 of a lesson must not undo a reader's progress in it: `&step=N`
// starts there, and what the browser kept stays until this visit passes beyond it.
test("a link's &step=1 does not overwrite the reader's saved progress", async ({ browser }) => {
  test.setTimeout(360_000);
  // The reader's own browser with nothing kept: the shipped state, no saved progress.
  const { context, page } = await openPlayground(browser, "./?lesson=01-tour", { refuseUnplanned: true, warm: false });
  try {
    const run = page.getByTestId("lesson-run");
    for (const next of ["2", "3"]) {
      await expect(page.getByTestId("lesson-show-me")).toBeEnabled({ timeout: 120_000 });
      await page.getByTestId("lesson-show-me").click();
      await expect(run).toHaveAttribute("data-step", next, { timeout: 120_000 });
    }
    await page.goto("./?embed=1&lesson=01-tour&step=1");
    await waitForGuest(page);
    await expect(run).toHaveAttribute("data-step", "1");
    await page.goto("./?lesson=01-tour");
    await waitForGuest(page);
    await expect(run).toHaveAttribute("data-step", "3");
  } finally {
    await context.close();
  }
});

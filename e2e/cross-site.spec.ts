import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, type Frame, test } from "@playwright/test";
import { launchWithSiteData } from "./support/denied-storage";
import { BOOT_TIMEOUT_MS } from "./support/guest";
import { customElementDocsPage, type LessonHost, serveDocsPage, startLessonHost } from "./support/lesson-host";
import { sha256 } from "./support/lessons";
import { upstream } from "./support/upstreams";

// A docs page on one site (127.0.0.1) embeds the playground from another (localhost), in a
// Chromium whose "Block third-party cookies" setting is on and which lists the playground's
// site as not allowed to keep data (its own settings, in a fresh profile: alone, blocking
// third-party cookies only partitions a frame's storage in Chromium 156). The deployment names its lesson host in tab.config.json;
// the lesson is served by a local HTTPS host with CORS (e2e/support/lesson-host.ts), its
// certificate trusted by its key. The scenario embed boots and gives its verdict; the lesson
// embed loads the pinned lesson, passes a step and posts its messages to the docs page.
test.describe.configure({ mode: "serial" });

const TEXT = readFileSync("lessons/01-tour.yaml", "utf8");
const PIN = sha256(TEXT);

let host: LessonHost;
let session: Awaited<ReturnType<typeof launchWithSiteData>>;
let docs: Awaited<ReturnType<typeof serveDocsPage>>;
let playground: string;

test.beforeAll(async () => {
  host = await startLessonHost({ "/tour.yaml": TEXT });
  const base = new URL(test.info().project.use.baseURL ?? "http://127.0.0.1:4399/");
  playground = `http://localhost:${base.port}/`;
  session = await launchWithSiteData(
    { blockThirdPartyCookies: true, blockSiteDataOf: [playground.replace(/\/$/, "")] },
    { width: 1280, height: 1200 },
    host.chromiumArgs,
  );
  await session.context.route(
    `${playground}tab.config.json`,
    upstream(200, { "content-type": "application/json" }, JSON.stringify({ version: 1, lessonOrigins: [host.origin] })),
  );
});
test.afterAll(async () => {
  await session?.close();
  await host?.close();
  await docs?.close();
});

/** The snippet `npx tab lesson publish` writes for this lesson (the real CLI), given the id the page finds it by. */
async function publishedEmbed(embedder: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "tab-publish-"));
  writeFileSync(join(dir, "tour.yaml"), TEXT);
  const args = ["lesson", "publish", dir, "--base", host.origin, "--playground", playground, "--embedder", embedder];
  await promisify(execFile)(process.execPath, [join("bin", "tab.mjs"), ...args]);
  const published = JSON.parse(readFileSync(join(dir, "published.json"), "utf8")) as { lessons: { pinnedUrl: string; embed: string }[] };
  const lesson = published.lessons[0];
  expect(lesson?.pinnedUrl).toBe(`${host.origin}tour.yaml#sha256=${PIN}`);
  return (lesson?.embed ?? "").replace("<iframe ", '<iframe id="lesson" ').replace(' loading="lazy"', "");
}

test("on another site with third-party storage blocked, the lesson embed loads a pinned lesson from the trusted host, fails a step, passes every step and posts each documented message", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  // The docs page's port is known once it listens; its HTML names itself as the embedder.
  let html = "";
  docs = await serveDocsPage("");
  docs.server.removeAllListeners("request");
  docs.server.on("request", (_q, r) => {
    r.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    r.end(html);
  });
  const docsOrigin = `http://127.0.0.1:${docs.port}`;
  html = `<!doctype html><title>docs</title><script>
    window.messages = [];
    addEventListener("message", (e) => { if (e.origin === ${JSON.stringify(new URL(playground).origin)} && e.data && e.data.source === "linux-in-a-tab") window.messages.push(e.data); });
  </script>
  <h1 style="font:600 16px sans-serif;margin:8px 0">A docs page on 127.0.0.1 (one site); the two players below are framed from localhost (another site), with third-party storage blocked</h1>
  ${await publishedEmbed(docsOrigin)}
  <iframe id="scenario" width="800" height="500" style="border:0" allow="loopback-network" src="${playground}?embed=1&amp;scenario=4"></iframe>`;
  const page = session.context.pages()[0] ?? (await session.context.newPage());
  page.on("pageerror", (e) => console.log(`[docs error] ${e.message}`));
  await page.goto(`${docsOrigin}/docs.html`);
  const messages = () => page.evaluate(() => (window.messages ?? []).map((m) => `${m.type}${m.step ? ` ${m.step}` : ""}`));
  await expect.poll(messages, { timeout: 120_000 }).toEqual(expect.arrayContaining(["lesson.loaded", "lesson.step-started 1"]));
  expect(host.requests).toContain("/tour.yaml");

  const lesson = page.frameLocator("#lesson");
  await expect(lesson.getByTestId("lesson-show-me")).toBeEnabled({ timeout: BOOT_TIMEOUT_MS });
  await lesson.getByTestId("lesson-show-me").click();
  await expect.poll(messages, { timeout: 120_000 }).toEqual(expect.arrayContaining(["lesson.step-passed 1", "lesson.step-started 2"]));
  // A command the reader types that does not do what step 2 asks fails it.
  await lesson.locator(".xterm-helper-textarea").focus();
  await page.keyboard.type("true");
  await page.keyboard.press("Enter");
  await expect.poll(messages, { timeout: 120_000 }).toContain("lesson.step-failed 2");
  // Show me through the last step: every step passes and the lesson is done.
  for (const step of [2, 3, 4]) {
    await expect(lesson.getByTestId("lesson-show-me")).toBeEnabled({ timeout: 120_000 });
    await lesson.getByTestId("lesson-show-me").click();
    await expect.poll(messages, { timeout: 120_000 }).toContain(`lesson.step-passed ${step}`);
  }
  await expect
    .poll(messages, { timeout: 120_000 })
    .toEqual(expect.arrayContaining(["lesson.step-started 3", "lesson.step-started 4", "lesson.done"]));
  const said = await messages();
  console.log(`messages on the docs page: ${said.join(", ")}`);

  // The scenario embed beside it: Run gives row 4's verdict.
  const scenario = page.frames().find((f) => f.url().includes("scenario=4")) as Frame;
  const run = page.frameLocator("#scenario").locator("[data-embed-run]");
  await expect(run).toBeEnabled({ timeout: BOOT_TIMEOUT_MS });
  await run.click();
  await expect(page.frameLocator("#scenario").locator(".embed-status")).toContainText("ip-literal by proxy", { timeout: 120_000 });
  const storage = await scenario.evaluate(() => {
    try {
      localStorage.setItem("x", "1");
      return "kept";
    } catch (error) {
      return (error as Error).name;
    }
  });
  expect(storage).toBe("SecurityError");
  expect(said).toContain("page.storage-denied");
  await page.screenshot({ path: "docs/screenshots/cross-site-embed.png" });
});

test("the custom element on a plain page of another site builds the player and re-dispatches its messages as DOM events, a mispinned lesson's refusal too", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const lesson = `${host.origin}tour.yaml#sha256=${PIN}`;
  const plain = await serveDocsPage(
    customElementDocsPage(`${playground}linux-in-a-tab.js`, lesson, `${host.origin}tour.yaml#sha256=${"0".repeat(64)}`),
  );
  const page = await session.context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${plain.port}/`);
    const frame = page.locator("linux-in-a-tab:not(#mispinned) iframe");
    await expect(frame).toHaveAttribute("allow", "loopback-network");
    const src = new URL((await frame.getAttribute("src")) ?? "");
    expect(Object.fromEntries(src.searchParams)).toEqual({ embed: "1", lesson, step: "1", embedder: `http://127.0.0.1:${plain.port}` });
    const seen = () => page.evaluate(() => window.seen ?? []);
    await expect
      .poll(seen, { timeout: 120_000 })
      .toEqual(
        expect.arrayContaining(["page.storage-denied", "lesson.loaded", "lesson.step-started 1", "lesson.refused lesson-pin-mismatch"]),
      );
    const player = page.frameLocator("linux-in-a-tab:not(#mispinned) iframe");
    await expect(player.getByTestId("lesson-show-me")).toBeEnabled({ timeout: BOOT_TIMEOUT_MS });
    await player.getByTestId("lesson-show-me").click();
    await expect.poll(seen, { timeout: 120_000 }).toEqual(expect.arrayContaining(["lesson.step-passed 1", "lesson.step-started 2"]));
  } finally {
    await page.close();
    await plain.close();
  }
});

test("every row of the verdict table embeds: row 8 (the vault's) on another site runs and gives its verdict, by the KMS", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const plain = await serveDocsPage(`<!doctype html><title>row 8</title>
    <iframe id="row8" width="800" height="500" style="border:0" allow="loopback-network" src="${playground}?embed=1&amp;scenario=8"></iframe>`);
  const page = await session.context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${plain.port}/`);
    const embed = page.frameLocator("#row8");
    await expect(embed.locator(".embed-title")).toHaveText("8. Push with a read grant");
    await expect(embed.getByTestId("embed-error")).toHaveCount(0);
    await expect(embed.locator(".embed-explanation")).toContainText("Decided by the KMS");
    const run = embed.locator("[data-embed-run]");
    await expect(run).toBeEnabled({ timeout: BOOT_TIMEOUT_MS });
    await run.click();
    await expect(embed.locator(".embed-status")).toContainText("vault-op-not-granted by kms", { timeout: 120_000 });
    await expect(embed.locator(".embed-explanation")).toContainText("as row 8 expects");
  } finally {
    await page.close();
    await plain.close();
  }
});

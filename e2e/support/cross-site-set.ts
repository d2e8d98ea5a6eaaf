import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { type Running, servePlaygroundSite, startNameProxy } from "./cross-site-hosts";
import type { FramedBrowser, FramedLaunch, StorageSetting } from "./framed-browser";
import { BOOT_TIMEOUT_MS } from "./guest";
import { customElementDocsPage, LESSON_HOST, type LessonHost, serveDocsPage, startLessonHost } from "./lesson-host";
import { sha256 } from "./lessons";

/**
 * e2e/cross-site.spec.ts for an engine besides Chromium (e2e/cross-site.*.spec.ts pass their
 * launcher): a docs page on one site (127.0.0.1) embeds the playground from another
 * (localhost), in a fresh profile. The deployment names its lesson host in tab.config.json;
 * the lesson is served over HTTPS with CORS by `tab lesson publish --serve`'s server
 * (e2e/support/lesson-host.ts), reached through the test's proxy. With the engine's own
 * storage setting, then with all storage denied: the lesson embed (the snippet `npx tab lesson
 * publish` writes) loads the pinned lesson, fails a step on a command the reader types, passes
 * every step and posts each documented message (docs/lessons.md, "Embedding"; the refusal from
 * a mispinned lesson); the scenario embed boots and gives its verdict, row 8 too; the custom
 * element does the same on a plain page.
 */
export interface CrossSiteEngine {
  name: string;
  open(o: FramedLaunch): Promise<FramedBrowser>;
  /** What a frame's storage is with the engine's own setting: kept (partitioned by the docs site) or denied. */
  defaultStorage: "kept" | "denied";
  /**
   * What a denied frame's `localStorage` is: one that throws a SecurityError (Chromium, and
   * Firefox with "block all cookies"; the default) or `null` (WebKitGTK with it turned off).
   */
  deniedLocalStorage?: "SecurityError" | "null";
}

const TEXT = readFileSync("lessons/01-tour.yaml", "utf8");
const PIN = sha256(TEXT);
const LESSON = "#lesson";
const SCENARIO = "#scenario";
const ELEMENT = "linux-in-a-tab:not(#mispinned) iframe";
const ROW_8 = "#row8";

export function defineCrossSiteSet(engine: CrossSiteEngine): void {
  test.describe(`in ${engine.name}, on another site`, () => {
    test.describe.configure({ mode: "serial" });
    let host: LessonHost;
    let proxy: Running;
    let site: Running & { origin: string };

    test.beforeAll(async () => {
      host = await startLessonHost({ "/tour.yaml": TEXT });
      proxy = await startNameProxy({ [`${LESSON_HOST}:443`]: host.port });
      site = await servePlaygroundSite(test.info().project.use.baseURL ?? "http://127.0.0.1:4399/", {
        version: 1,
        lessonOrigins: [host.origin],
      });
    });
    test.afterAll(async () => {
      await site?.close();
      await proxy?.close();
      await host?.close();
    });

    for (const storage of ["default", "denied"] as const satisfies readonly StorageSetting[])
      test.describe(storage === "default" ? "with the engine's own storage setting" : "with all storage denied", () => {
        let browser: FramedBrowser;
        const expectDenied = storage === "denied" || engine.defaultStorage === "denied";

        test.beforeAll(async () => {
          browser = await engine.open({ proxyPort: proxy.port, storage });
          console.log(`engine under test: ${browser.version} (storage: ${storage})`);
        });
        test.afterAll(async () => {
          await browser?.close();
        });

        test("the lesson embed loads the pinned lesson from the trusted host, fails a step, passes every step and posts each documented message; the scenario embed gives its verdict", async () => {
          test.setTimeout(BOOT_TIMEOUT_MS * 2);
          const docs = await serveDocsPage("");
          try {
            const docsOrigin = `http://127.0.0.1:${docs.port}`;
            const html = `<!doctype html><title>docs</title><script>
              window.messages = [];
              addEventListener("message", (e) => { if (e.origin === ${JSON.stringify(site.origin)} && e.data && e.data.source === "linux-in-a-tab") window.messages.push(e.data); });
            </script>
            <h1 style="font:16px sans-serif">A docs page on ${docsOrigin}, the playground from ${site.origin} (${browser.version})</h1>
            ${await publishedEmbed(host, `${site.origin}/`, docsOrigin)}
            <iframe id="scenario" width="800" height="500" style="border:0" allow="loopback-network" src="${site.origin}/?embed=1&amp;scenario=4"></iframe>`;
            docs.server.removeAllListeners("request");
            docs.server.on("request", (_q, r) => {
              r.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
            });
            await browser.goto(`${docsOrigin}/docs.html`);
            const said = () =>
              browser.evaluate(
                () =>
                  (window as unknown as { messages: { type: string; step?: number; code?: string; reason?: string }[] }).messages.map(
                    // A refusal says why, so a failure names it.
                    (m) => (m.type === "lesson.refused" ? `${m.type}: ${m.code} ${m.reason}` : `${m.type}${m.step ? ` ${m.step}` : ""}`),
                  ),
                null,
              );
            await until(said, ["lesson.loaded", "lesson.step-started 1"], 180_000);
            expect(host.requests).toContain("/tour.yaml");

            await untilInFrame(browser, LESSON, "Show me enabled", SHOW_ME_ENABLED, BOOT_TIMEOUT_MS);
            await browser.clickInFrame(LESSON, SHOW_ME);
            await until(said, ["lesson.step-passed 1", "lesson.step-started 2"], 180_000);
            // A command the reader types that does not do what step 2 asks fails it.
            await browser.typeLineInFrame(LESSON, "true");
            await until(said, ["lesson.step-failed 2"], 180_000);
            // Show me through the last step: every step passes and the lesson is done.
            for (const step of [2, 3, 4]) {
              await untilInFrame(browser, LESSON, "Show me enabled", SHOW_ME_ENABLED, 180_000);
              await browser.clickInFrame(LESSON, SHOW_ME);
              await until(said, [`lesson.step-passed ${step}`], 180_000);
            }
            await until(said, ["lesson.step-started 3", "lesson.step-started 4", "lesson.done"], 180_000);

            // The scenario embed beside it: Run gives row 4's verdict.
            await untilInFrame(browser, SCENARIO, "Run enabled", RUN_ENABLED, BOOT_TIMEOUT_MS);
            await browser.clickInFrame(SCENARIO, RUN);
            await untilInFrame(browser, SCENARIO, "row 4's verdict", VERDICT_SHOWN, 180_000);

            expect(await browser.evaluateInFrame(SCENARIO, STORAGE_PROBE, null)).toBe(
              expectDenied ? (engine.deniedLocalStorage ?? "SecurityError") : "kept",
            );
            const messages = await said();
            console.log(`messages on the docs page: ${messages.join(", ")}`);
            if (expectDenied) expect(messages).toContain("page.storage-denied");
            else expect(messages).not.toContain("page.storage-denied");
            await browser.screenshot(test.info().outputPath(`cross-site-${browser.engine}-${storage}.png`));
          } finally {
            await docs.close();
          }
        });

        test("row 8 (the vault's) embeds like every row: it runs and gives its verdict, by the KMS", async () => {
          test.setTimeout(BOOT_TIMEOUT_MS);
          const plain = await serveDocsPage(`<!doctype html><title>row 8</title>
            <iframe id="row8" width="800" height="500" style="border:0" allow="loopback-network" src="${site.origin}/?embed=1&amp;scenario=8"></iframe>`);
          try {
            await browser.goto(`http://127.0.0.1:${plain.port}/`);
            await untilInFrame(browser, ROW_8, "Run enabled", RUN_ENABLED, BOOT_TIMEOUT_MS);
            expect(await browser.evaluateInFrame(ROW_8, () => document.querySelector(".embed-title")?.textContent ?? "", null)).toBe(
              "8. Push with a read grant",
            );
            await browser.clickInFrame(ROW_8, RUN);
            await untilInFrame(
              browser,
              ROW_8,
              "row 8's verdict",
              () => (document.querySelector(".embed-status")?.textContent ?? "").includes("vault-op-not-granted by kms"),
              180_000,
            );
          } finally {
            await plain.close();
          }
        });

        test("the custom element on a plain page builds the player and re-dispatches its messages as DOM events, a mispinned lesson's refusal too", async () => {
          test.setTimeout(BOOT_TIMEOUT_MS);
          const lesson = `${host.origin}tour.yaml#sha256=${PIN}`;
          const plain = await serveDocsPage(
            customElementDocsPage(`${site.origin}/linux-in-a-tab.js`, lesson, `${host.origin}tour.yaml#sha256=${"0".repeat(64)}`),
          );
          try {
            await browser.goto(`http://127.0.0.1:${plain.port}/`);
            const frame = await browser.evaluate(() => {
              const iframe = document.querySelector("linux-in-a-tab:not(#mispinned) iframe");
              return iframe === null ? null : { allow: iframe.getAttribute("allow"), src: iframe.getAttribute("src") ?? "" };
            }, null);
            expect(frame?.allow).toBe("loopback-network");
            const src = new URL(frame?.src ?? "");
            expect(Object.fromEntries(src.searchParams)).toEqual({
              embed: "1",
              lesson,
              step: "1",
              embedder: `http://127.0.0.1:${plain.port}`,
            });
            const seen = () => browser.evaluate(() => (window as unknown as { seen: string[] }).seen, null);
            await until(
              seen,
              [
                "lesson.loaded",
                "lesson.step-started 1",
                "lesson.refused lesson-pin-mismatch",
                ...(expectDenied ? ["page.storage-denied"] : []),
              ],
              180_000,
            );
            await untilInFrame(browser, ELEMENT, "Show me enabled", SHOW_ME_ENABLED, BOOT_TIMEOUT_MS);
            await browser.clickInFrame(ELEMENT, SHOW_ME);
            await until(seen, ["lesson.step-passed 1", "lesson.step-started 2"], 180_000);
            if (!expectDenied) expect(await seen()).not.toContain("page.storage-denied");
          } finally {
            await plain.close();
          }
        });
      });
  });
}

const SHOW_ME = '[data-testid="lesson-show-me"]';
const RUN = "[data-embed-run]";
const SHOW_ME_ENABLED = () => document.querySelector<HTMLButtonElement>('[data-testid="lesson-show-me"]')?.disabled === false;
const RUN_ENABLED = () => document.querySelector<HTMLButtonElement>("[data-embed-run]")?.disabled === false;
const VERDICT_SHOWN = () => (document.querySelector(".embed-status")?.textContent ?? "").includes("ip-literal by proxy");
/** Whether the framed page may keep anything: what `localStorage` is and does when written. */
const STORAGE_PROBE = () => {
  try {
    if (localStorage === null) return "null";
    localStorage.setItem("cross-site-probe", "1");
    localStorage.removeItem("cross-site-probe");
    return "kept";
  } catch (error) {
    return (error as Error).name;
  }
};

/** The snippet `npx tab lesson publish` writes for the lesson (the real CLI), with an id to find its frame by. */
async function publishedEmbed(host: LessonHost, playground: string, embedder: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "tab-publish-"));
  writeFileSync(join(dir, "tour.yaml"), TEXT);
  const args = ["lesson", "publish", dir, "--base", host.origin, "--playground", playground, "--embedder", embedder];
  await promisify(execFile)(process.execPath, [join("bin", "tab.mjs"), ...args]);
  const published = JSON.parse(readFileSync(join(dir, "published.json"), "utf8")) as { lessons: { pinnedUrl: string; embed: string }[] };
  const lesson = published.lessons[0];
  expect(lesson?.pinnedUrl).toBe(`${host.origin}tour.yaml#sha256=${PIN}`);
  expect(lesson?.embed).toContain('allow="loopback-network"');
  return (lesson?.embed ?? "").replace("<iframe ", '<iframe id="lesson" ').replace(' loading="lazy"', "");
}

/** Polls `read` until it includes every one of `wanted`; fails naming what it last saw. */
async function until(read: () => Promise<string[]>, wanted: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string[] = [];
  for (;;) {
    last = await read();
    if (wanted.every((w) => last.includes(w))) return;
    if (Date.now() > deadline)
      throw new Error(`after ${timeoutMs} ms the docs page had ${JSON.stringify(last)}, not all of ${JSON.stringify(wanted)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Polls `fn` in a framed page until it returns true. */
async function untilInFrame(browser: FramedBrowser, frame: string, what: string, fn: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await browser.evaluateInFrame(frame, fn, null)) return;
    if (Date.now() > deadline) throw new Error(`in ${browser.engine}: timed out after ${timeoutMs} ms waiting in ${frame} for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

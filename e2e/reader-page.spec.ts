import { type BrowserContext, expect, type Locator, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, runInGuest, waitForGuest } from "./support/guest";
import { LESSON_BASE, lessonLink, serveLesson, sha256 } from "./support/lessons";
import { scenarioEnded } from "./support/scenarios";
import { refuseUnplanned } from "./support/upstreams";

// The reader's page in an 800×500 docs iframe (issue 47): a lesson's Markdown rendered as DOM,
// Run and Show me on screen, every glyph of the terminal visible at 1× and 2×, and the panels'
// tables keeping words whole. One context, one boot, the pages in turn.
test.describe.configure({ mode: "serial" });

const VIEWPORT = { width: 800, height: 500 };

let context: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  await refuseUnplanned(context);
  page = await context.newPage();
  page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
});
test.afterAll(async () => {
  await closePlayground(context ? { context, page } : undefined);
});

/** The box lies inside the viewport, and the point at its centre is the element itself (nothing covers it). */
async function expectOnScreen(locator: Locator): Promise<void> {
  await expect(locator).toBeVisible();
  const box = await locator.boundingBox();
  expect(box).not.toBeNull();
  if (!box) return;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(VIEWPORT.width);
  expect(box.y + box.height).toBeLessThanOrEqual(VIEWPORT.height);
  const hit = await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return at !== null && (at === el || el.contains(at));
  });
  expect(hit).toBe(true);
}

const MARKDOWN_LESSON = `lesson: 1
title: Markdown as a docs author writes it
steps:
  - title: Read the table
    text: |
      ## Where a request goes

      | verdict | decided by |
      |:--|:--|
      | \`host-not-allowed\` | proxy |

      \`\`\`sh
      curl -sS https://pastebin.com/ <b>not bold</b>
      \`\`\`

      See [the docs](https://docs.example/guide), not [this](javascript:window.__pwned=1) or
      [that](http://plain.example/). <img src=x onerror="window.__pwned=1">
    run: curl -sS https://pastebin.com/
    expect:
      - verdict: host-not-allowed
        by: proxy
`;

test("a lesson's Markdown is DOM: a heading, a table, a fenced block, an https link; other links and raw HTML stay text", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const url = `${LESSON_BASE}markdown.yaml`;
  await serveLesson(context, url, MARKDOWN_LESSON);
  await page.goto(lessonLink(url, sha256(MARKDOWN_LESSON), "&embed=1"));
  const step = page.getByTestId("lesson-step");
  await expect(step).toContainText("Where a request goes", { timeout: 60_000 });
  const card = page.getByTestId("lesson-card");
  // `##` sits under the step's own title (an h2).
  await expect(card.locator("h4.lesson-heading")).toHaveText("Where a request goes");
  await expect(card.locator(".lesson-table th")).toHaveText(["verdict", "decided by"]);
  await expect(card.locator(".lesson-table td code")).toHaveText("host-not-allowed");
  await expect(card.locator("pre.lesson-code code")).toHaveText("curl -sS https://pastebin.com/ <b>not bold</b>\n");
  await expect(card.locator('pre.lesson-code code[data-lang="sh"]')).toHaveCount(1);
  const links = step.locator("a");
  await expect(links).toHaveCount(1);
  await expect(links).toHaveAttribute("href", "https://docs.example/guide");
  await expect(links).toHaveAttribute("rel", "noopener noreferrer");
  await expect(card).toContainText("[this](javascript:window.__pwned=1)");
  await expect(card).toContainText("[that](http://plain.example/)");
  await expect(card).toContainText('<img src=x onerror="window.__pwned=1">');
  expect(await card.locator("img, b, script").count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});

test("in an 800×500 lesson embed, Run and Show me are on screen without scrolling", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  await page.goto("./?embed=1&lesson=02-verdict-table");
  await waitForGuest(page);
  const run = page.getByTestId("lesson-run-demo");
  const showMe = page.getByTestId("lesson-show-me");
  await expect(run).toBeEnabled({ timeout: 120_000 });
  await expectOnScreen(run);
  await expectOnScreen(showMe);
  // Nothing scrolled to get there: the page and the lesson's card are at their tops.
  expect(await page.evaluate(() => [window.scrollY, document.querySelector(".lesson-card")?.scrollTop ?? -1])).toEqual([0, 0]);
  // A step whose text is longer than the card keeps them on screen: they stay at the card's bottom edge.
  await page.evaluate(() => {
    const step = document.querySelector('[data-testid="lesson-step"]');
    const para = step?.querySelector("p");
    if (para) para.textContent = "A long explanation. ".repeat(120);
  });
  await expectOnScreen(run);
  await expectOnScreen(showMe);
});

/**
 * For each of the first `count` cells of a terminal row, how many of its pixels are ink (far
 * from the terminal's #0b0e14 background), read from one screenshot of the row at the page's
 * device pixel ratio.
 */
async function inkPerCell(row: Locator, count: number, cols: number): Promise<number[]> {
  const screen = await page.locator("#terminal .xterm-screen").boundingBox();
  const box = await row.boundingBox();
  if (!screen || !box) throw new Error("no terminal row");
  const cellWidth = screen.width / cols;
  const png = await page.screenshot({ clip: { x: screen.x, y: box.y, width: cellWidth * count, height: box.height } });
  return page.evaluate(
    async ({ base64, count }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const g = canvas.getContext("2d");
      if (!g) throw new Error("no 2d context");
      g.drawImage(bitmap, 0, 0);
      const data = g.getImageData(0, 0, bitmap.width, bitmap.height).data;
      const ink = new Array<number>(count).fill(0);
      for (let y = 0; y < bitmap.height; y++)
        for (let x = 0; x < bitmap.width; x++) {
          const i = (y * bitmap.width + x) * 4;
          const cell = Math.min(count - 1, Math.floor((x * count) / bitmap.width));
          if ((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0) > 3 * 80) ink[cell] = (ink[cell] ?? 0) + 1;
        }
      return ink;
    },
    { base64: png.toString("base64"), count },
  );
}

/** Printable ASCII but the space, in two lines that fit 80 columns. */
const GLYPHS = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join("");
const GLYPH_LINES = [GLYPHS.slice(0, 47), GLYPHS.slice(47)];
/** A printf format that prints `text` exactly: every character as an octal escape. */
const octal = (text: string) => [...text].map((c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`).join("");

test("the terminal draws a_b's underscore, and every ASCII glyph, at 1× and at 2×", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  await page.goto("./?embed=1&scenario=4");
  await waitForGuest(page);
  const ran = await runInGuest(page, `clear; echo a_b; printf '${GLYPH_LINES.map(octal).join("\\n")}\\n'`);
  expect(ran.output).toContain("a_b");
  const rowOf = (text: string) =>
    page.locator("#terminal .xterm-rows > div").filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\s*$`) });
  const ab = rowOf("a_b");
  await expect(ab).toHaveCount(1);
  for (const line of GLYPH_LINES) await expect(rowOf(line)).toHaveCount(1);
  const cols = (await page.evaluate(() => window.__tab?.terminalSize().cols)) ?? 0;
  expect(cols).toBeGreaterThanOrEqual(GLYPH_LINES[0]!.length);
  const cdp = await context.newCDPSession(page);
  try {
    for (const scale of [1, 2]) {
      await cdp.send("Emulation.setDeviceMetricsOverride", { ...VIEWPORT, deviceScaleFactor: scale, mobile: false });
      await expect.poll(() => page.evaluate(() => window.devicePixelRatio)).toBe(scale);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      // "a" and "b" beside it prove the reading; the underscore is a line of at least 3 pixels a row.
      const [a, underscore, b] = await inkPerCell(ab, 3, cols);
      expect(a, `a at ${scale}×`).toBeGreaterThan(0);
      expect(underscore, `_ at ${scale}×`).toBeGreaterThanOrEqual(3 * scale);
      expect(b, `b at ${scale}×`).toBeGreaterThan(0);
      for (const line of GLYPH_LINES) {
        const ink = await inkPerCell(rowOf(line), line.length, cols);
        const blank = [...line].filter((_, i) => (ink[i] ?? 0) === 0);
        expect(blank, `glyphs with no ink at ${scale}×`).toEqual([]);
      }
    }
  } finally {
    await cdp.send("Emulation.clearDeviceMetricsOverride");
    await cdp.detach();
  }
});

test("a table cell's word stays whole at the embed size: 'proxy' is one line beside a long URL", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  if (!page.url().includes("scenario=4")) await page.goto("./?embed=1&scenario=4");
  await waitForGuest(page);
  const from = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await page.locator("[data-embed-run]").click();
  expect((await scenarioEnded(page, "ip-literal", from)).phase).toBe("done");
  // The same decision again with a long URL as its target: the row a docs reader meets on a real request.
  await page.evaluate((from) => {
    const log = window.__tab?.log;
    const decision = log?.events().find((e) => e.seq >= from && e.kind === "proxy.decision");
    if (!log || !decision) throw new Error("no proxy decision");
    const { seq: _seq, time: _time, ...event } = decision;
    log.append({ ...event, target: `https://93.184.216.34/${"a1b2c3d4".repeat(24)}/index.html` } as Parameters<typeof log.append>[0]);
  }, from);
  const proxyCells = page.locator("#panel-proxy table.events td").filter({ hasText: /^proxy$/ });
  await expect(proxyCells).toHaveCount(2);
  const lines = await proxyCells.evaluateAll((cells) =>
    cells.map((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return range.getClientRects().length;
    }),
  );
  expect(lines).toEqual([1, 1]);
  // The long URL broke instead: the table is no wider than its panel.
  const widths = await page.locator("#panel-proxy .panel-scroll").evaluate((scroll) => [scroll.scrollWidth, scroll.clientWidth]);
  expect(widths[0]).toBeLessThanOrEqual(widths[1] ?? 0);
});

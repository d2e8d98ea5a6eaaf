import { expect, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground } from "./support/guest";
import { refuseUnplanned, routeZen, runScenario } from "./support/upstreams";

// The request timeline above the panels. Rows of the verdict table run in the real
// guest (served, host-not-allowed, ip-literal, landlock-denied); the
// chart shows each decision as a mark in its decider's lane, counts them as the log does, and
// a click on a mark selects the panel that lists it.
test.describe.configure({ mode: "serial" });

let pg: Playground;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser);
  const context = pg.context;
  await refuseUnplanned(context);
  await routeZen(context, "Half measures are as bad as nothing at all.");
});
test.afterAll(async () => {
  await closePlayground(pg);
});

/** The log's own count of decisions, computed here without the timeline's code. */
const countsFromLog = (page: Page) =>
  page.evaluate(() => {
    let allowed = 0;
    let refused = 0;
    for (const e of window.__tab?.log.events() ?? []) {
      switch (e.kind) {
        case "proxy.decision":
          if (e.mode === "own") break;
          if (e.allowed) allowed++;
          else refused++;
          break;
        case "tls.verdict":
        case "wire.verdict":
        case "kms.event":
        case "skills.step":
        case "resolver.step":
          if (e.allowed) allowed++;
          else refused++;
          break;
        case "kernel.decision":
          refused++;
          break;
        default:
          break;
      }
    }
    return `${allowed} allowed · ${refused} refused`;
  });

test("the timeline shows each scenario's decisions by component, counted as the log counts them", async () => {
  test.setTimeout(420_000);
  const page = pg.page;
  const chart = page.locator("section.timeline");
  await expect(chart).toBeVisible();
  // It sits above the panels, and stays compact so they keep their room at 1280×720.
  expect(await page.evaluate(() => document.querySelector(".panels-box")?.firstElementChild?.classList.contains("timeline"))).toBe(true);

  for (const id of ["served", "host-not-allowed", "ip-literal", "landlock-denied"]) await runScenario(page, id);

  await expect(chart.locator('.mark[data-lane="proxy"][data-allowed="true"]').first()).toBeVisible();
  await expect(chart.locator('.mark[data-lane="proxy"][data-allowed="false"]').first()).toBeVisible();
  const kernelMark = chart.locator('.mark[data-lane="kernel"][data-allowed="false"]').first();
  await expect(kernelMark).toBeVisible();
  await expect(kernelMark.locator("title")).toHaveText(/landlock-denied/);
  // Allowed and refused differ in shape, not only colour: dots and crosses.
  await expect(chart.locator('.mark[data-allowed="true"] circle').first()).toBeAttached();
  await expect(chart.locator('.mark[data-allowed="false"] path').first()).toBeAttached();

  // The counts line and the accessible summary agree with the log (polled: events may still trickle in).
  const counts = chart.getByTestId("timeline-counts");
  await expect
    .poll(async () => {
      const [shown, expected] = [await counts.textContent(), await countsFromLog(page)];
      return shown === expected ? "same" : `shown "${shown}", log "${expected}"`;
    })
    .toBe("same");
  const shown = (await counts.textContent()) ?? "";
  expect(shown).toMatch(/^[1-9]\d* allowed · [1-9]\d* refused$/);
  await expect(chart).toHaveAttribute("aria-label", new RegExp(`${shown}.*proxy: .*kernel: 0 allowed, [1-9]`));

  const box = await chart.boundingBox();
  expect(box?.height ?? 0).toBeLessThanOrEqual(96);

  // A click on a kernel mark selects the Kernel panel.
  await page.locator("#tab-proxy").click();
  await expect(page.locator("#tab-proxy")).toHaveAttribute("aria-selected", "true");
  await kernelMark.click();
  await expect(page.locator("#tab-kernel")).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#panel-kernel")).toBeVisible();

  // Hovering a mark shows its code, target and time in the head line.
  await kernelMark.hover();
  await expect(chart.locator(".timeline-detail")).toContainText("landlock-denied");
  await expect(chart.locator(".timeline-detail")).toContainText("93.184.216.34");
  await chart.screenshot({ path: "docs/screenshots/timeline.png" }); // docs/guide.md

  // Keyboard: the marks are one tab stop; Enter on a focused net mark selects the Proxy panel.
  await chart.locator('.mark[data-lane="proxy"][data-allowed="true"]').first().focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("#tab-proxy")).toHaveAttribute("aria-selected", "true");
  expect(await chart.locator('.mark[tabindex="0"]').count()).toBe(1);
});

test("the timeline is hidden in embed mode", async () => {
  const page = pg.page;
  await page.evaluate(() => document.querySelector(".app")?.classList.add("embed"));
  await expect(page.locator("section.timeline")).toBeHidden();
  await page.evaluate(() => document.querySelector(".app")?.classList.remove("embed"));
  await expect(page.locator("section.timeline")).toBeVisible();
});

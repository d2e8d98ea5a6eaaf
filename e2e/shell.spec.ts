import { expect, type Page, test } from "@playwright/test";
import type { NewEvent } from "../src/log";

// The app shell: every panel renders events pushed into the one log, hostile
// strings render inert as text, and the layout holds at 1280×720 and 1920×1080.
// These tests don't need the guest: they push events into the log directly. One page for
// the file (the guest boots once in the background).
test.describe.configure({ mode: "serial" });

let page: Page;
test.beforeAll(async ({ browser }) => {
  page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto("./");
  await page.waitForFunction(() => window.__tab !== undefined);
});
test.afterAll(async () => {
  await page?.close();
});

const panels: readonly { id: string; event: NewEvent; text: string }[] = [
  { id: "wire", event: { kind: "wire.dns", name: "example.com", type: "A", answer: "REFUSED" }, text: "example.com" },
  {
    id: "proxy",
    event: {
      kind: "proxy.decision",
      id: "r1",
      mode: "absolute",
      method: "GET",
      target: "https://pastebin.com/raw/abc",
      status: 403,
      bytes: 0,
      durationMs: 2,
      allowed: false,
      code: "host-not-allowed",
      reason: "pastebin.com is not on the allowlist",
      by: "proxy",
    },
    text: "host-not-allowed",
  },
  {
    id: "resolver",
    event: {
      kind: "resolver.step",
      run: "r",
      field: "agent",
      ref: "https://example.com/agent.md",
      refKind: "url",
      pin: null,
      cache: "none",
      allowed: false,
      code: "hash-missing",
      reason: "no #sha256= pin",
      by: "resolver",
      bytes: 0,
      durationMs: 0,
    },
    text: "hash-missing",
  },
  {
    id: "cache",
    event: { kind: "cache.event", op: "corrupt", sha256: "ab".repeat(32), bytes: 10, message: "re-hash mismatch" },
    text: "corrupt",
  },
  { id: "policy", event: { kind: "policy.change", oldHash: null, newHash: "cd".repeat(32), source: "test" }, text: "applied" },
  {
    id: "kernel",
    event: { kind: "kernel.result", program: "tcpconnect", target: "93.184.216.34:443", result: "EACCES", errno: 13, line: "x" },
    text: "EACCES",
  },
];

for (const { id, event, text } of panels) {
  test(`the ${id} panel renders an event pushed into the log`, async () => {
    await page.evaluate((e) => window.__tab?.log.append(e), event);
    await page.locator(`[data-tab="${id}"]`).click();
    const panel = page.locator(`#panel-${id}`);
    await expect(panel).toBeVisible();
    await expect(panel.locator("tbody tr").filter({ hasText: text }).first()).toBeVisible();
  });
}

test("the Kernel tab's badge counts the kernel's decisions, not boot or ruleset rows", async () => {
  await page.locator('[data-tab="proxy"]').click();
  const badge = page.locator('[data-tab="kernel"] .badge');
  const before = Number((await badge.textContent()) || "0");
  await page.evaluate(() => {
    window.__tab?.log.append({ kind: "boot.progress", phase: "boot", message: "e2e: a boot row" });
    window.__tab?.log.append({
      kind: "kernel.ruleset",
      abi: 10,
      fsRo: ["/"],
      fsRw: [],
      connect: [3128],
      bind: [],
      scope: [],
      dropped: [],
      line: "llrun: ruleset abi=10 fs_ro=/ fs_rw= connect=3128 bind=* scope= dropped=",
    });
    window.__tab?.log.append({
      kind: "kernel.decision",
      allowed: false,
      code: "landlock-denied",
      by: "kernel",
      reason: "Landlock domain 1a2b does not allow fs.make_reg on /tmp",
      access: ["fs.make_reg"],
      target: "/tmp",
      path: "/tmp",
      program: "/usr/bin/busybox",
      pid: 77,
      domain: "1a2b",
      record: "",
    });
  });
  await expect(badge).toHaveText(String(before + 1));
  await page.locator('[data-tab="kernel"]').click();
  await expect(page.locator("#panel-kernel tbody tr").filter({ hasText: "fs.make_reg /tmp" }).first()).toBeVisible();
});

test("a hostile registry-like string renders inert, as text", async () => {
  const hostile = "<img src=x onerror=alert(1)>\x1b[31m";
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    void d.dismiss();
  });
  await page.evaluate(
    (name) =>
      window.__tab?.log.append({
        kind: "proxy.decision",
        id: "h1",
        mode: "absolute",
        method: "GET",
        target: `https://evil.example/${name}`,
        status: 403,
        bytes: 0,
        durationMs: 0,
        allowed: false,
        code: "host-not-allowed",
        reason: name,
        by: "proxy",
      }),
    hostile,
  );
  await page.locator('[data-tab="proxy"]').click();
  const row = page.locator("#panel-proxy tbody tr").filter({ hasText: "<img src=x onerror=alert(1)>" });
  await expect(row).toHaveCount(1);
  expect(await page.locator("#panel-proxy img").count()).toBe(0);
  expect(dialogs).toBe(0);
});

test("the filter box narrows a panel and the clear button empties it", async () => {
  await page.evaluate(() => {
    for (const name of ["alpha.filter.example", "beta.filter.example", "gamma.filter.example"])
      window.__tab?.log.append({ kind: "wire.dns", name, type: "A", answer: "REFUSED" });
  });
  const panel = page.locator("#panel-wire");
  await page.locator('[data-tab="wire"]').click();
  await expect(panel.locator("tbody tr").filter({ hasText: "filter.example" })).toHaveCount(3);
  await panel.getByLabel("Filter Wire events").fill("beta.filter");
  await expect(panel.locator("tbody tr:visible").filter({ hasText: "filter.example" })).toHaveCount(1);
  await panel.getByLabel("Filter Wire events").fill("");
  await panel.getByRole("button", { name: "Clear" }).click();
  await expect(panel.locator("tbody tr").filter({ hasText: "filter.example" })).toHaveCount(0);
});

test("keyboard: arrow keys move between panel tabs", async () => {
  await page.locator('[data-tab="wire"]').focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.locator('[data-tab="proxy"]')).toHaveAttribute("aria-selected", "true");
  await expect(page.locator('[data-tab="proxy"]')).toBeFocused();
  await page.keyboard.press("End");
  await expect(page.locator("[data-tab]").last()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowLeft");
  await expect(page.locator("[data-tab]").last()).toHaveAttribute("aria-selected", "false");
  await page.keyboard.press("Alt+1");
  await expect(page.locator('[data-tab="wire"]')).toHaveAttribute("aria-selected", "true");
});

for (const size of [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
]) {
  test(`the layout holds at ${size.width}×${size.height}`, async () => {
    await page.setViewportSize(size);
    const terminal = await page.locator("#terminal").boundingBox();
    const panelsBox = await page.locator(".panels-box").boundingBox();
    expect(terminal && panelsBox).toBeTruthy();
    if (!terminal || !panelsBox) return;
    // Side by side, inside the viewport, neither squeezed to nothing.
    expect(terminal.width).toBeGreaterThan(size.width * 0.35);
    expect(panelsBox.width).toBeGreaterThan(size.width * 0.35);
    expect(terminal.x + terminal.width).toBeLessThanOrEqual(panelsBox.x + 1);
    expect(panelsBox.x + panelsBox.width).toBeLessThanOrEqual(size.width + 1);
    expect(terminal.height).toBeGreaterThan(size.height * 0.5);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).toBeLessThanOrEqual(size.width);
    await page.screenshot({ path: test.info().outputPath(`layout-${size.width}x${size.height}.png`) });
  });
}

import { expect, test } from "@playwright/test";

// Clear errors when a guest file is missing or its hash does not match SHA256SUMS;
// the page never boots from bad bytes.

test("a guest file whose bytes do not match SHA256SUMS stops the boot with a clear error", async ({ page }) => {
  await page.route("**/guest/bzImage", (route) => route.fulfill({ status: 200, body: Buffer.from("not a kernel") }));
  await page.goto("./?boot=fresh");
  const status = page.locator(".boot-text");
  await expect(status).toContainText("bzImage: sha256");
  await expect(status).toContainText("does not match SHA256SUMS");
  const phases = await page.evaluate(() => window.__tab?.log.ofKind("boot.progress").map((e) => e.phase));
  expect(phases).toContain("error");
  expect(phases).not.toContain("start");
});

test("a missing guest file stops the boot with an error naming it", async ({ page }) => {
  await page.route("**/guest/seabios.bin", (route) => route.fulfill({ status: 404, body: "" }));
  await page.goto("./?boot=fresh");
  await expect(page.locator(".boot-text")).toContainText("seabios.bin is missing (HTTP 404)");
});

test("on a first visit, a shipped state whose bytes do not match SHA256SUMS stops with a clear error", async ({ page }) => {
  await page.route("**/guest/state.bin.zst", (route) => route.fulfill({ status: 200, body: Buffer.from("not a state") }));
  await page.goto("./");
  const status = page.locator(".boot-text");
  await expect(status).toContainText("state.bin.zst: sha256");
  await expect(status).toContainText("does not match SHA256SUMS");
  const phases = await page.evaluate(() => window.__tab?.log.ofKind("boot.progress").map((e) => e.phase));
  expect(phases).not.toContain("start");
});

test("a missing SHA256SUMS says the guest image is not installed", async ({ page }) => {
  await page.route("**/guest/SHA256SUMS", (route) => route.fulfill({ status: 404, body: "" }));
  await page.goto("./");
  await expect(page.locator(".boot-text")).toContainText("SHA256SUMS is missing");
});

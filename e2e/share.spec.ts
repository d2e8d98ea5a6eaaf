import { expect, type Page, test } from "@playwright/test";
import { openPlayground } from "./support/guest";

// Issue 11: a link made by the share button in one browser context reproduces the same
// verdict sequence (codes and deciders, not timings) in a fresh context with empty IndexedDB.
test.describe.configure({ mode: "serial" });

const cors = { "access-control-allow-origin": "*" };

async function routeUpstreams(page: Page) {
  const context = page.context();
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort("blockedbyclient"));
  await context.route("https://api.github.com/zen", (route) =>
    route.request().method() === "OPTIONS"
      ? route.fulfill({ status: 204, headers: { ...cors, "access-control-allow-headers": "*" } })
      : route.fulfill({ status: 200, headers: { ...cors, "content-type": "text/plain" }, body: "Keep it logically awesome." }),
  );
}

async function runScenario(page: Page, id: string) {
  const before = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await page.locator(`[data-scenario="${id}"]`).click();
  await page.waitForFunction(
    ({ id, before }) =>
      window.__tab?.log.events().some((e) => e.seq >= before && e.kind === "scenario" && e.id === id && e.phase !== "start"),
    { id, before },
    { timeout: 90_000 },
  );
}

test("a share link replays the sender's verdict sequence in a fresh browser context", async ({ browser }) => {
  test.setTimeout(420_000);
  const sender = await openPlayground(browser);
  await routeUpstreams(sender.page);
  // The sender tightens the policy (no raw.githubusercontent.com) and runs three rows.
  await sender.page.evaluate(async () => {
    const holder = window.__tab?.policy;
    if (!holder) throw new Error("no policy");
    const current = holder.current();
    await holder.replace({ ...current, hosts: current.hosts.filter((h) => h.host === "api.github.com") }, "test");
  });
  for (const id of ["served", "host-not-allowed", "ip-literal"]) await runScenario(sender.page, id);
  await sender.page.locator("#share").click();
  const link = await sender.page.locator(".share-output").inputValue();
  expect(link).toContain("scenarios=served%2Chost-not-allowed%2Cip-literal");
  expect(link).toContain("policy=");
  expect(link).toContain("expect=");
  const sent = await sender.page.evaluate(() => (window.__tab!.features.share as { sequence(): unknown[] }).sequence());
  expect(sent.length).toBeGreaterThanOrEqual(3);
  await sender.context.close();

  const receiverContext = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const receiver = await receiverContext.newPage();
  await routeUpstreams(receiver);
  await receiver.goto(link);
  await receiver.waitForFunction(() => window.__tab?.features.share !== undefined);
  await receiver.evaluate(async () => {
    await (window.__tab!.features.share as { replayed: Promise<void> }).replayed;
  });
  await expect(receiver.getByTestId("replay-verdict")).toHaveText(/The replay produced the sender's verdict sequence/);
  const replayed = await receiver.evaluate(() => (window.__tab!.features.share as { sequence(): unknown[] }).sequence());
  expect(replayed).toEqual(sent);
  const changes = await receiver.evaluate(() => window.__tab?.log.ofKind("policy.change").map((e) => e.source));
  expect(changes).toContain("share link");
  await receiver.screenshot({ path: "docs/screenshots/replay.png" }); // docs/guide.md
  await receiverContext.close();
});

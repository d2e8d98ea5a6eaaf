import { readFileSync } from "node:fs";
import { type BrowserContext, expect, test } from "@playwright/test";
import { answerLinkCard } from "./support/consent";
import { openPlayground } from "./support/guest";
import { refuseUnplanned, routeZen, runScenario } from "./support/upstreams";

// A link made by the share button in one browser context reproduces the same
// verdict sequence (codes and deciders, not timings) in a fresh context with empty IndexedDB.
test.describe.configure({ mode: "serial" });

async function routeUpstreams(context: BrowserContext) {
  await refuseUnplanned(context);
  await routeZen(context, "Keep it logically awesome.");
}

test("a share link replays the sender's verdict sequence in a fresh browser context", async ({ browser }) => {
  test.setTimeout(420_000);
  const sender = await openPlayground(browser);
  await routeUpstreams(sender.context);
  // The sender tightens the policy (no raw.githubusercontent.com) and runs three rows.
  await sender.page.evaluate(async () => {
    const holder = window.__tab?.policy;
    if (!holder) throw new Error("no policy");
    const current = holder.current();
    await holder.replace({ ...current, hosts: current.hosts.filter((h) => h.host === "api.github.com") }, "test");
  });
  for (const id of ["served", "host-not-allowed", "ip-literal"]) await runScenario(sender.page, id);
  await sender.page.locator("#share").click();
  // The link is built asynchronously (the policy is deflated): wait for it to appear.
  await expect(sender.page.locator(".share-output")).toHaveValue(/^http/);
  const link = await sender.page.locator(".share-output").inputValue();
  expect(link).toContain("scenarios=served%2Chost-not-allowed%2Cip-literal");
  expect(link).toContain("policy=");
  expect(link).toContain("expect=");
  const sent = await sender.page.evaluate(() => window.__tab?.features.share?.sequence() ?? []);
  expect(sent.length).toBeGreaterThanOrEqual(3);
  await sender.context.close();

  const { context: receiverContext, page: receiver } = await openPlayground(browser, link, { setup: routeUpstreams, wait: "none" });
  await receiver.waitForFunction(() => window.__tab?.features.share !== undefined);
  await answerLinkCard(receiver);
  await receiver.evaluate(async () => {
    await window.__tab?.features.share?.replayed;
  });
  await expect(receiver.getByTestId("replay-verdict")).toHaveText(/The replay produced the sender's verdict sequence/);
  const replayed = await receiver.evaluate(() => window.__tab?.features.share?.sequence() ?? []);
  expect(replayed).toEqual(sent);
  const changes = await receiver.evaluate(() => window.__tab?.log.ofKind("policy.change").map((e) => e.source));
  expect(changes).toContain("share link");
  await receiver.screenshot({ path: "docs/screenshots/replay.png" }); // docs/guide.md
  await receiverContext.close();
});

test("a policy too large for the link travels by URL pinned with its sha256; other bytes are refused (fail closed)", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const { context: sender, page } = await openPlayground(browser, "./", { warm: false, acceptDownloads: true, wait: "none" });
  await page.waitForFunction(() => window.__tab?.features.share !== undefined);
  await page.evaluate(async () => {
    const holder = window.__tab!.policy;
    const current = holder.current();
    const first = current.hosts[0]!;
    const many = Array.from({ length: 300 }, (_, i) => ({ ...first, host: `mirror-${i}-${(i * 7919) % 1000}.example.org` }));
    await holder.replace({ ...current, hosts: [...current.hosts, ...many] }, "test");
  });
  await page.locator("#share").click();
  const form = page.getByTestId("share-policy-ref");
  await expect(form).toContainText("too large to carry in the link");
  const download = page.waitForEvent("download");
  await form.getByRole("button", { name: "Download policy.json" }).click();
  const published = readFileSync(await (await download).path());
  await form.getByRole("textbox").fill("https://pub.example/policies/policy.json");
  await form.getByRole("button", { name: "Make link" }).click();
  await expect(page.locator(".share-output")).toHaveValue(/policy-ref=/);
  const link = await page.locator(".share-output").inputValue();
  expect(new URL(link).searchParams.get("policy")).toBeNull();
  expect(new URL(link).searchParams.get("policy-ref")).toMatch(/^https:\/\/pub\.example\/policies\/policy\.json#sha256=[0-9a-f]{64}$/);
  await sender.close();

  const { context: receiver, page: rpage } = await openPlayground(browser, link, {
    refuseUnplanned: true,
    wait: "none",
    setup: async (context) => {
      await context.route("https://pub.example/policies/policy.json", (route) =>
        route.fulfill({ status: 200, headers: { "access-control-allow-origin": "*" }, body: published }),
      );
      await context.route("https://pub.example/policies/tampered.json", (route) =>
        route.fulfill({
          status: 200,
          headers: { "access-control-allow-origin": "*" },
          body: Buffer.concat([published, Buffer.from(" ")]),
        }),
      );
    },
  });
  await answerLinkCard(rpage);
  await rpage.waitForFunction(() => window.__tab?.log.ofKind("policy.change").some((e) => e.source === "share link"), null, {
    timeout: 60_000,
  });
  expect(await rpage.evaluate(() => window.__tab!.policy.current().hosts.length)).toBeGreaterThan(300);

  await rpage.goto(link.replace("policy.json", "tampered.json"));
  await answerLinkCard(rpage);
  await rpage.waitForFunction(() => window.__tab?.log.ofKind("note").some((e) => e.source === "share link"), null, { timeout: 60_000 });
  const note = await rpage.evaluate(() => window.__tab?.log.ofKind("note").find((e) => e.source === "share link")?.message ?? "");
  expect(note).toContain("(hash-mismatch, by resolver)");
  expect(await rpage.evaluate(() => window.__tab!.policy.current().hosts.length)).toBeLessThan(10);
  await receiver.close();
});

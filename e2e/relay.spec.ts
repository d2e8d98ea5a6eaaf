import { expect, type Page, test } from "@playwright/test";
import { type RunningRelay, runRelay } from "../src/cli/relay/testing/harness";
import { answerLinkCard } from "./support/consent";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, runInGuest } from "./support/guest";
import { type HttpsUpstream, startHttpsUpstream } from "./support/https-upstream";
import { createTestCa } from "./support/test-ca";

// The page with a relay: a local HTTPS upstream with its own test CA and NO CORS
// headers, behind `npx tab relay` (a real child process). The page opens a Wisp stream to the
// host its policy allowed and is the TLS client itself (epoxy-tls), verifying the certificate
// for that name. The upstream listens on 127.0.0.19 (its own loopback address): on port 443
// when the tests run as root (so the guest's `https://upstream.test/` needs no port), else on
// 8443 (a user cannot listen below 1024; `TAB_E2E_RELAY_PORT` picks another), with the policy
// and the relay's `--allow-ports` following it. The relay reaches it only under its
// test-only flags. The page trusts the test CA through the TEST ONLY global, defined before
// the page's scripts run (src/page/relay/test-trust.ts). One boot for the file.
// Generous: a guest's TLS handshake with the page alone can take half a minute on a busy machine.
test.describe.configure({ mode: "serial", timeout: 480_000 });

const UPSTREAM_ADDRESS = "127.0.0.19";
const PORT = Number(process.env.TAB_E2E_RELAY_PORT ?? (process.getuid?.() === 0 ? 443 : 8443));
const authority = (host: string) => (PORT === 443 ? host : `${host}:${PORT}`);
/** `https://upstream.test` (with the port when it is not 443), and the wrong-name host's. */
const UPSTREAM = `https://${authority("upstream.test")}`;
const WRONG = `https://${authority("wrong.test")}`;
const POLICY = {
  version: 1,
  hosts: [{ host: "upstream.test" }, { host: "wrong.test" }],
  ports: [PORT],
  http: "upgrade",
  vaults: [],
};

let pg: Playground;
let upstream: HttpsUpstream;
let relay: RunningRelay;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const ca = createTestCa();
  // wrong.test answers with a certificate for other.test: valid chain, wrong name.
  upstream = await startHttpsUpstream(
    ca,
    { "upstream.test": ["upstream.test"], "wrong.test": ["other.test"] },
    { host: UPSTREAM_ADDRESS, port: PORT },
  );
  relay = await runRelay([
    "--allow-private-for-tests",
    UPSTREAM_ADDRESS,
    "--resolve",
    `upstream.test=${UPSTREAM_ADDRESS}`,
    "--resolve",
    `wrong.test=${UPSTREAM_ADDRESS}`,
    ...(PORT === 443 ? [] : ["--allow-ports", String(PORT)]),
  ]);
  pg = await openPlayground(browser, `./?relay=${encodeURIComponent(relay.url)}`, {
    refuseUnplanned: true,
    setup: (context) =>
      context.addInitScript((pem) => {
        Reflect.set(globalThis, "__TAB_TEST_TRUST_ANCHORS__", [pem]);
      }, ca.certPem),
  });
  const page = pg.page;
  await answerLinkCard(page);
  const applied = await page.evaluate((text) => window.__tab?.policy.replaceText(text, "relay spec"), JSON.stringify(POLICY));
  expect(applied).toMatchObject({ ok: true });
});

test.afterAll(async () => {
  await closePlayground(pg);
  relay?.child.kill("SIGINT");
  await upstream?.close();
});

interface Decision {
  target: string;
  code: string;
  status: number;
  reason: string;
  upstreamPath?: string;
}

/** The decisions about https://upstream.test or wrong.test since `from` (not the CONNECTs). */
const decisionsSince = (page: Page, from: number): Promise<Decision[]> =>
  page.evaluate(
    (from) =>
      (window.__tab?.log.ofKind("proxy.decision") ?? [])
        .filter((e) => e.seq >= from && e.mode === "tunnel")
        .map((e) => ({
          target: e.target,
          code: e.code,
          status: e.status,
          reason: e.reason,
          ...(e.upstreamPath ? { upstreamPath: e.upstreamPath } : {}),
        })),
    from,
  );
const nextSeq = (page: Page) => page.evaluate(() => window.__tab?.log.nextSeq ?? 0);

/** curl from the guest: the body, then the status and redirect URL on the last line. */
async function curl(url: string): Promise<{ body: string; status: string; redirect: string }> {
  const ran = await runInGuest(pg.page, `curl -sS -w '\\n@@ %{http_code} %{redirect_url}\\n' ${url}`, 240_000);
  const match = /([\s\S]*)@@ (\d{3}) ?(\S*)\s*$/.exec(ran.output);
  if (!match) throw new Error(`curl printed no status: ${ran.output}`);
  return { body: match[1] ?? "", status: match[2] ?? "", redirect: match[3] ?? "" };
}

test("curl https://upstream.test/ok is served through the relay, the page verifying the test CA's certificate", async () => {
  const from = await nextSeq(pg.page);
  const answer = await curl(`${UPSTREAM}/ok`);
  expect(answer.status).toBe("200");
  expect(answer.body).toContain(`ok from ${authority("upstream.test")} over the relay`);
  expect(await decisionsSince(pg.page, from)).toEqual([
    expect.objectContaining({ target: `${UPSTREAM}/ok`, code: "served", status: 200, upstreamPath: "wisp-relay" }),
  ]);
  // The relay connected to the checked address only, and moved ciphertext both ways.
  const record = await relay.record((r) => r.name === "upstream.test" && r.refused === false);
  expect(record).toMatchObject({ address: UPSTREAM_ADDRESS, port: PORT });
  expect(upstream.requests.at(-1)).toMatchObject({ host: authority("upstream.test"), method: "GET", path: "/ok" });

  await pg.page.locator('[data-tab="proxy"]').click();
  await expect(pg.page.locator("#panel-proxy")).toContainText(`GET ${UPSTREAM}/ok · via relay`);
});

test("a same-host 302 reaches curl as a 302, not followed", async () => {
  const from = await nextSeq(pg.page);
  const before = upstream.requests.length;
  const answer = await curl(`${UPSTREAM}/moved`);
  expect(answer.status).toBe("302");
  expect(answer.redirect).toBe(`${UPSTREAM}/ok`);
  expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(["/moved"]);
  expect(await decisionsSince(pg.page, from)).toEqual([
    expect.objectContaining({ target: `${UPSTREAM}/moved`, code: "served", status: 302, upstreamPath: "wisp-relay" }),
  ]);
});

test("a 302 to another host is refused redirect-other-host, naming that host", async () => {
  const from = await nextSeq(pg.page);
  const answer = await curl(`${UPSTREAM}/away`);
  expect(answer.status).toBe("403");
  expect(answer.body).toContain("elsewhere.test");
  const [decision] = await decisionsSince(pg.page, from);
  expect(decision).toMatchObject({ target: `${UPSTREAM}/away`, code: "redirect-other-host", upstreamPath: "wisp-relay" });
  expect(decision?.reason).toContain("redirected to elsewhere.test, another host");
});

test("a certificate for another name is refused upstream-cert-invalid", async () => {
  const from = await nextSeq(pg.page);
  const before = upstream.requests.length;
  const answer = await curl(`${WRONG}/ok`);
  expect(answer.status).toBe("502");
  expect(answer.body).toContain("upstream-cert-invalid");
  const [decision] = await decisionsSince(pg.page, from);
  expect(decision).toMatchObject({ target: `${WRONG}/ok`, code: "upstream-cert-invalid", upstreamPath: "wisp-relay" });
  expect(decision?.reason).toContain("did not verify for wrong.test");
  // Nothing was sent: the handshake failed before any request.
  expect(upstream.requests.length).toBe(before);
});

test("without the relay the same request is upstream-unreadable with the hint; set again in the Policy panel, it is served", async () => {
  const { page } = pg;
  await page.locator('[data-tab="policy"]').click();
  await page.getByTestId("relay-url").fill("");
  await page.getByTestId("relay-apply").click();
  await expect(page.getByTestId("relay-status")).toContainText("no relay");

  let from = await nextSeq(page);
  const refused = await curl(`${UPSTREAM}/ok`);
  expect(refused.status).toBe("502");
  const [decision] = await decisionsSince(page, from);
  expect(decision).toMatchObject({ target: `${UPSTREAM}/ok`, code: "upstream-unreadable", upstreamPath: "browser-fetch" });
  expect(decision?.reason).toContain("run `npx tab relay` and open the page with ?relay=");

  await page.getByTestId("relay-url").fill(relay.url);
  await page.getByTestId("relay-url").press("Enter");
  await expect(page.getByTestId("relay-status")).toContainText(`relay ${relay.url}`);
  expect(await page.evaluate(() => localStorage.getItem("tab.relay"))).toBe(relay.url);
  from = await nextSeq(page);
  const served = await curl(`${UPSTREAM}/ok`);
  expect(served.status).toBe("200");
  expect(await decisionsSince(page, from)).toEqual([expect.objectContaining({ code: "served", upstreamPath: "wisp-relay" })]);
  await page.screenshot({ path: "docs/screenshots/relay.png" }); // docs/guide.md, "Reaching hosts without CORS"
});

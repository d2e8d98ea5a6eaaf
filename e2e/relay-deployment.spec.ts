import { expect, test } from "@playwright/test";
import { type RunningRelay, runRelay } from "../src/cli/relay/testing/harness";
import { answerLinkCard } from "./support/consent";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, runInGuest } from "./support/guest";
import { type HttpsUpstream, startHttpsUpstream } from "./support/https-upstream";
import { type NginxFront, nginxBinary, startNginxFront } from "./support/nginx";
import { createTestCa } from "./support/test-ca";

// docs/relay.md's recipe for many users, with the page: nginx terminating TLS (a certificate
// from the test CA, for localhost) on loopback in front of two `npx tab relay` instances, the
// page's relay set to wss://localhost:PORT/wisp/. Each request opens its own WebSocket, so
// nginx's round robin serves one stream from each instance. The page trusts the test CA for
// the upstream through the TEST ONLY global, and the browser context accepts nginx's test
// certificate (ignoreHTTPSErrors); the relays see the page's own Origin, passed on by nginx.
test.describe.configure({ mode: "serial", timeout: 480_000 });

const UPSTREAM_ADDRESS = "127.0.0.19";
const PORT = Number(process.env.TAB_E2E_RELAY_PORT ?? (process.getuid?.() === 0 ? 443 : 8443));
const authority = (host: string) => (PORT === 443 ? host : `${host}:${PORT}`);
const UPSTREAM = `https://${authority("upstream.test")}`;
const POLICY = { version: 1, hosts: [{ host: "upstream.test" }], ports: [PORT], http: "upgrade", vaults: [] };

let pg: Playground;
let upstream: HttpsUpstream;
const relays: RunningRelay[] = [];
let nginx: NginxFront;

// Skipped only where nginx is absent and this is not CI (npm test's scripts/ensure-tools.ts
// installs it as root with apt): CI must run it.
test.skip(nginxBinary === undefined && !process.env.CI, "nginx is not installed here (apt-get install -y nginx)");

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const ca = createTestCa();
  upstream = await startHttpsUpstream(ca, { "upstream.test": ["upstream.test"] }, { host: UPSTREAM_ADDRESS, port: PORT });
  for (let i = 0; i < 2; i++)
    relays.push(
      await runRelay([
        "--allow-private-for-tests",
        UPSTREAM_ADDRESS,
        "--resolve",
        `upstream.test=${UPSTREAM_ADDRESS}`,
        "--trust-proxy",
        "127.0.0.1",
        ...(PORT === 443 ? [] : ["--allow-ports", String(PORT)]),
      ]),
    );
  nginx = await startNginxFront({
    serverName: "localhost",
    ...ca.issue(["localhost"]),
    relayPorts: relays.map((r) => Number(new URL(r.url).port)),
  });
  pg = await openPlayground(browser, `./?relay=${encodeURIComponent(`wss://localhost:${nginx.port}/wisp/`)}`, {
    refuseUnplanned: true,
    ignoreHTTPSErrors: true,
    setup: (context) =>
      context.addInitScript((pem) => {
        Reflect.set(globalThis, "__TAB_TEST_TRUST_ANCHORS__", [pem]);
      }, ca.certPem),
  });
  const page = pg.page;
  await answerLinkCard(page);
  const applied = await page.evaluate((text) => window.__tab?.policy.replaceText(text, "relay deployment spec"), JSON.stringify(POLICY));
  expect(applied).toMatchObject({ ok: true });
});

test.afterAll(async () => {
  await closePlayground(pg);
  await nginx?.close();
  for (const relay of relays) relay.child.kill("SIGINT");
  await upstream?.close();
});

test("through nginx and wss://, the page's requests are served by both relay instances", async () => {
  for (let i = 0; i < 2; i++) {
    const ran = await runInGuest(pg.page, `curl -sS -w '\\n@@ %{http_code}\\n' ${UPSTREAM}/ok`, 240_000);
    expect(ran.output).toContain("@@ 200");
    expect(ran.output).toContain(`ok from ${authority("upstream.test")} over the relay`);
  }
  for (const relay of relays) {
    const record = await relay.record((r) => r.kind === "relay.stream" && r.name === "upstream.test");
    // The client is the page's address as nginx saw it; the relay connected to the checked address.
    expect(record).toMatchObject({ code: "served", refused: false, client: "127.0.0.1", address: UPSTREAM_ADDRESS, port: PORT });
  }
  expect(nginx.errors()).not.toMatch(/\[(error|crit|alert|emerg)\]/);
});

import { expect, test } from "@playwright/test";
import { type FirefoxPlayground, openFirefoxPlayground, proxyPanelText, runFirefoxScenario, waitForFirefoxGuest } from "./support/firefox";
import { BOOT_TIMEOUT_MS } from "./support/guest";

// The page in a second engine: Debian's Firefox ESR over WebDriver BiDi (the "firefox" project
// in playwright.config.ts; e2e/support/firefox.ts says why puppeteer-core drives it). A cold
// boot, then the two rows that exercise what differs most between engines: TLS terminated in
// the page (WebCrypto X25519, ECDSA, AES-GCM) and a refusal, each landing in the Proxy panel;
// then a reload restores the state the boot saved in Firefox's IndexedDB.
test.describe.configure({ mode: "serial" });

let ff: FirefoxPlayground;

test.beforeAll(async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const baseURL = test.info().project.use.baseURL ?? "http://127.0.0.1:4399/";
  ff = await openFirefoxPlayground(baseURL, {
    "https://api.github.com/zen": { status: 200, contentType: "text/plain", body: "Firefox speaks TLS too." },
  });
});
test.afterAll(async () => {
  await ff?.browser.close();
});

function decisions(from: number): Promise<{ code: string; mode: string; target: string }[]> {
  return ff.page.evaluate(
    (from) =>
      (window.__tab?.log.events() ?? []).flatMap((e) =>
        e.seq >= from && e.kind === "proxy.decision" ? [{ code: e.code, mode: e.mode, target: e.target }] : [],
      ),
    from,
  );
}

test("in Firefox, row 1's allowed GET is served through TLS terminated in the page", async () => {
  const from = await runFirefoxScenario(ff.page, "served");
  expect(await decisions(from)).toContainEqual({ code: "served", mode: "tunnel", target: "https://api.github.com/zen" });
  expect(await ff.page.evaluate(() => window.__tab?.guest?.console.text)).toContain("Firefox speaks TLS too.");
  const session = await ff.page.evaluate(() => window.__tab?.log.ofKind("tls.session").find((e) => e.phase === "established"));
  expect(session).toMatchObject({ sni: "api.github.com", group: "x25519" });
  await expect.poll(() => proxyPanelText(ff.page)).toContain("served");
});

test("in Firefox, row 2's host not on the allowlist is refused (host-not-allowed)", async () => {
  const from = await runFirefoxScenario(ff.page, "host-not-allowed");
  expect((await decisions(from)).map((d) => d.code)).toContain("host-not-allowed");
  await expect.poll(() => proxyPanelText(ff.page)).toContain("host-not-allowed");
});

test("in Firefox, a reload restores the guest state the boot saved in IndexedDB", async () => {
  await ff.page.waitForFunction(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save"), {
    timeout: 60_000,
  });
  await ff.page.reload();
  await waitForFirefoxGuest(ff.page);
  const phases = await ff.page.evaluate(() => window.__tab?.log.ofKind("boot.progress").map((e) => e.phase));
  expect(phases).toContain("snapshot-restore");
  expect(phases).not.toContain("ready");
});

import { type BrowserContext, expect, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, terminalRows } from "./support/guest";
import { routeZen, runScenario } from "./support/upstreams";

// A browser whose WebCrypto lacks X25519 (older Safari releases among them) is told so before the
// guest starts and still works: the page's TLS with the guest takes P-256, asking the guest's
// curl for it with a HelloRetryRequest. Chromium stands in, its X25519 taken away before the
// page's scripts run. One guest (restored from the suite's kept state) for the file.
test.describe.configure({ mode: "serial" });

let pg: Playground;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser, "./", { refuseUnplanned: true, setup: takeAwayX25519 });
});
test.afterAll(async () => {
  await closePlayground(pg);
});

/** The zen upstream, and Chromium's X25519 taken away before the page's scripts run. */
async function takeAwayX25519(context: BrowserContext): Promise<void> {
  await routeZen(context, "Fall back, but never fall over.");
  await context.addInitScript(() => {
    const subtle = globalThis.crypto.subtle;
    const generateKey = subtle.generateKey.bind(subtle);
    const importKey = subtle.importKey.bind(subtle);
    const named = (algorithm: unknown) => (typeof algorithm === "string" ? algorithm : (algorithm as { name?: string }).name);
    const refuse = () => Promise.reject(new DOMException("Unrecognized algorithm name", "NotSupportedError"));
    Object.defineProperty(subtle, "generateKey", {
      value: (algorithm: AlgorithmIdentifier, ...rest: unknown[]) =>
        named(algorithm) === "X25519" ? refuse() : (generateKey as (...a: unknown[]) => unknown)(algorithm, ...rest),
    });
    Object.defineProperty(subtle, "importKey", {
      value: (format: string, data: unknown, algorithm: AlgorithmIdentifier, ...rest: unknown[]) =>
        named(algorithm) === "X25519" ? refuse() : (importKey as (...a: unknown[]) => unknown)(format, data, algorithm, ...rest),
    });
  });
}

test("without X25519 the page says before boot that TLS uses P-256, and row 1 is served over P-256", async () => {
  const page = pg.page;
  const notes = await page.evaluate(() => window.__tab?.log.ofKind("note").map((e) => e.message) ?? []);
  expect(notes).toContainEqual(expect.stringContaining("lacks X25519: the guest's TLS with the page uses P-256 instead"));
  expect((await terminalRows(page)).join("\n")).toContain("lacks X25519");
  await runScenario(page, "served");
  expect(await page.evaluate(() => window.__tab?.guest?.console.text)).toContain("Fall back, but never fall over.");
  const session = await page.evaluate(() => window.__tab?.log.ofKind("tls.session").find((e) => e.phase === "established"));
  expect(session).toMatchObject({ sni: "api.github.com", group: "secp256r1" });
});

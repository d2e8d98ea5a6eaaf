import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, openPlayground, runInGuest } from "./support/guest";

// The static build works from any static host and under a sub-path. The suite's
// build (.e2e/dist-PORT) is served again under /demo/linux-in-a-tab/ by a plain static server.
const port = Number(process.env.TAB_E2E_PORT ?? 4399);
const subPort = port + 100;
const base = "/demo/linux-in-a-tab/";
let server: ChildProcess;
/** The kernel the committed image was built from (vendor/guest/manifest.json). */
const kernelVersion = (JSON.parse(readFileSync("vendor/guest/manifest.json", "utf8")) as { kernel: { version: string } }).kernel.version;

test.beforeAll(async () => {
  server = spawn("node", ["scripts/serve-static.mjs", `.e2e/dist-${port}`, String(subPort), base], { stdio: "ignore" });
  for (let i = 0; i < 50; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${subPort}${base}`)).ok) return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error("the sub-path server did not start");
});
test.afterAll(() => {
  server?.kill();
});

test("the static build served under a sub-path loads, verifies the image and boots the guest", async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const pg = await openPlayground(browser, `http://127.0.0.1:${subPort}${base}`);
  const { output } = await runInGuest(pg.page, "uname -r");
  expect(output.trim()).toBe(kernelVersion);
  const verified = await pg.page.evaluate(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "verify"));
  expect(verified).toBe(true);
  await pg.context.close();
});

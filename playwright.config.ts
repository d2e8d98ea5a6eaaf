import { defineConfig, devices } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/support/browsers";

const port = Number(process.env.TAB_E2E_PORT ?? 4399);
// Separate output folders per port, so runs on different ports never clobber each other.
const suffix = process.env.TAB_E2E_PORT ? `-${port}` : "";

export default defineConfig({
  testDir: "e2e",
  outputDir: `test-results${suffix}`,
  timeout: 240_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"], ["html", { open: "never", outputFolder: `playwright-report${suffix}` }]],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      testIgnore: /\.(firefox|webkit)\.spec\.ts$/,
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 1280, height: 720 },
        launchOptions: chromiumLaunchOptions(),
      },
    },
    {
      // Debian's Firefox ESR over WebDriver BiDi, launched by the spec itself with
      // puppeteer-core (e2e/support/firefox.ts says why): the page's second engine. It runs
      // the same engine set as WebKit (e2e/support/engine-set.ts).
      name: "firefox",
      testMatch: /\.firefox\.spec\.ts$/,
    },
    {
      // Debian's WebKitGTK (MiniBrowser) over its classic WebDriver, launched by the spec
      // (e2e/support/webkit.ts): the engine of every iOS browser and of Safari.
      name: "webkit",
      testMatch: /\.webkit\.spec\.ts$/,
    },
  ],
  webServer: {
    // Each port builds into its own folder and serves it with a plain static server, so
    // runs on different ports never share a build (and it is served as any static host would).
    command: `npx vite build --logLevel warn --outDir .e2e/dist-${port} --emptyOutDir && node scripts/serve-static.mjs .e2e/dist-${port} ${port}`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});

import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";

// The user guide's picture of the command line, taken from real output so it stays
// true. One engine, two hosts: `npx tab` runs the same core as the page (the proxy's verdicts
// reproduce with curl; the resolver runs offline from the recorded fixtures). Nothing here
// reaches the internet: the proxy refuses before any upstream fetch, and resolve reads fixtures.
const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
const tab = (args: string[]) => run(process.execPath, [join(root, "bin", "tab.mjs"), ...args], { cwd: root });

test("the CLI: tab resolve (offline, recorded fixtures) and tab proxy with curl, shown as a terminal", async ({ page }) => {
  test.setTimeout(180_000);
  const resolved = await tab(["resolve", "public/samples/.fullsend/harness/demo.yaml", "--fixtures", "public/samples/fixtures"]);
  const resolveLines = resolved.stdout.trim().split("\n");
  expect(resolveLines.length).toBeGreaterThan(3);
  for (const line of resolveLines) expect(() => JSON.parse(line)).not.toThrow();

  const proxy = spawn(process.execPath, [join(root, "bin", "tab.mjs"), "proxy", "--port", "0"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let decisions = "";
  let stderr = "";
  proxy.stdout.on("data", (d: Buffer) => {
    decisions += d.toString();
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      proxy.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m?.[1]) resolve(m[1]);
      });
      proxy.on("exit", (code) => reject(new Error(`tab proxy exited ${code}: ${stderr}`)));
    });
    // curl's own words: it exits non-zero when the proxy answers the CONNECT with 403.
    const curl = async (target: string) => {
      const out = await run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}\n", "-x", url, target], {
        env: { ...process.env, NO_PROXY: "", no_proxy: "" },
      }).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? "", stderr: error.stderr ?? "" }));
      return `${out.stderr}${out.stdout}`.trim();
    };
    const pastebin = await curl("https://pastebin.com/raw/abc123");
    const ipLiteral = await curl("https://93.184.216.34/");
    await expect.poll(() => decisions.split("\n").filter((l) => l.includes('"proxy.decision"')).length).toBeGreaterThanOrEqual(2);
    expect(pastebin).toContain("403");
    const lines = decisions
      .trim()
      .split("\n")
      .filter((l) => l.includes('"proxy.decision"'));
    expect(lines.map((l) => JSON.parse(l).code)).toEqual(["host-not-allowed", "ip-literal"]);

    // The screenshot: the commands and their real output, in a terminal-like page.
    const short = (line: string) => {
      const e = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(
        Object.fromEntries(Object.entries(e).filter(([k]) => ["kind", "field", "target", "cache", "code", "by", "reason"].includes(k))),
      );
    };
    const transcript = [
      "$ npx tab resolve public/samples/.fullsend/harness/demo.yaml --fixtures public/samples/fixtures",
      ...resolveLines.slice(0, 6).map(short),
      resolveLines.length > 6 ? `… ${resolveLines.length - 6} more lines` : "",
      "",
      `$ npx tab proxy --port 0 &        # ${stderr.split("\n")[0]?.slice(0, 60)}…`,
      "$ curl -x $PROXY https://pastebin.com/raw/abc123",
      pastebin,
      "$ curl -x $PROXY https://93.184.216.34/",
      ipLiteral,
      "# the proxy's decisions, one JSON line each (stdout):",
      ...lines.map(short),
    ].join("\n");
    await page.setViewportSize({ width: 1100, height: 460 });
    await page.setContent(
      '<body style="margin:0;background:#0d1117"><pre id="t" style="margin:0;padding:14px;color:#d1d7e0;font:13px/1.45 ui-monospace,monospace;white-space:pre-wrap"></pre></body>',
    );
    await page.locator("#t").evaluate((el, text) => {
      el.textContent = text;
    }, transcript);
    await expect(page.locator("#t")).toContainText("host-not-allowed");
    await page.screenshot({ path: "docs/screenshots/cli.png", fullPage: true }); // docs/guide.md
  } finally {
    proxy.kill();
  }
});

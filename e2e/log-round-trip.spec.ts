import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { runTab } from "../src/cli/testing/run-tab";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, runInGuest, typeAndWait } from "./support/guest";
import { scenarioEnded } from "./support/scenarios";
import { refuseUnplanned, routeZen, runScenario, upstream } from "./support/upstreams";

// The page's own downloaded log round-trips: after the guided tour's four steps, the verdict
// table's rows 1–8 and the demo agent run (every kind the page writes on the way: frames, TLS
// sessions, the llrun ruleset with `bind=*`, kernel results, DNS, the vault, tour steps, the
// resolver and the runner, scenarios) and a hand-typed CONNECT to a wildcard under report
// mode, Download log gives a file that the page's Replay panel, `npx tab policy replay` and
// `npx tab policy learn` all read with no error, and the page's draft and the CLI's agree.
// One guest for the file; nothing reaches the internet (Playwright answers the upstreams).
test.describe.configure({ mode: "serial" });

const root = join(import.meta.dirname, "..");
const tab = runTab;

const ROWS = [
  "served",
  "host-not-allowed",
  "redirect-other-host",
  "ip-literal",
  "sni-mismatch",
  "landlock-denied",
  "dns",
  "vault-push-read",
];

let pg: Playground;
let dir = "";
let logPath = "";
let policyPath = "";

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  dir = await mkdtemp(join(tmpdir(), "tab-log-round-trip-"));
  pg = await openPlayground(browser, "./?tour=1");
  await refuseUnplanned(pg.context);
  await routeZen(pg.context, "Design for failure.");
  await pg.context.route(
    "https://api.github.com/repos/octocat/Hello-World/tarball",
    upstream(302, { location: "https://evil.example/" }, ""),
  );
  await pg.page.evaluate(async () => {
    await window.__tab?.features.vault?.ready();
  });
});
test.afterAll(async () => {
  await closePlayground(pg);
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function applyPolicyText(page: Page, text: string): Promise<void> {
  expect(await page.evaluate((t) => window.__tab?.policy.replaceText(t, "log round-trip spec"), text)).toMatchObject({ ok: true });
}

test("the tour lesson's four steps, typed as a trainee types them, pass", async () => {
  test.setTimeout(360_000);
  const page = pg.page;
  const run = page.getByTestId("lesson-run");
  for (const step of ["1", "2", "3", "4"]) {
    await expect(run).toHaveAttribute("data-step", step, { timeout: 90_000 });
    // What Show me would type, typed at the keyboard as a trainee does.
    const command = (await page.getByTestId("lesson-show-me").getAttribute("title"))?.replace(/^Types into your guest: /, "") ?? "";
    await typeAndWait(page, command);
  }
  await expect(page.getByTestId("lesson-done")).toBeVisible({ timeout: 90_000 });
  // The finished lesson stays open; the page is given back (the verdict table's rows follow).
  await expect(page.locator('[data-scenario="served"]')).toBeVisible();
});

test("the demo agent runs end to end", async () => {
  test.setTimeout(300_000);
  const page = pg.page;
  const from = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await page.locator('[data-tab="resolver"]').click();
  await page.locator("[data-run-agent]").click();
  expect(await scenarioEnded(page, "run-*", from, 280_000)).toMatchObject({ phase: "done" });
});

test("rows 1–8 and a CONNECT to *.co.uk under report mode run, and Download log gives every line the page logged", async () => {
  test.setTimeout(ROWS.length * 100_000 + 120_000);
  const page = pg.page;
  for (const id of ROWS) await runScenario(page, id, 100_000);
  // A command typed by hand under report mode: the log claims a wildcard was "served".
  const enforced = await page.evaluate(() => JSON.stringify(window.__tab?.policy.current()));
  await applyPolicyText(page, JSON.stringify({ ...JSON.parse(enforced), mode: "report" }));
  const from = await page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  // curl refuses `*` in a URL's host, so the CONNECT line is written to the proxy by hand.
  await runInGuest(page, "printf 'CONNECT *.co.uk:443 HTTP/1.1\\r\\nHost: *.co.uk:443\\r\\n\\r\\n' | nc -w 3 10.0.2.2 3128 | head -1");
  await expect
    .poll(() =>
      page.evaluate((seq) => window.__tab?.log.ofKind("proxy.decision").filter((e) => e.seq >= seq && e.mode === "connect").length, from),
    )
    .toBeGreaterThan(0);
  await applyPolicyText(page, enforced);

  await page.locator('[data-tab="policy"]').click();
  const downloading = page.waitForEvent("download");
  await page.getByTestId("download-log").click();
  logPath = join(dir, "session.jsonl");
  await (await downloading).saveAs(logPath);
  const text = await readFile(logPath, "utf8");
  const kinds = new Set(
    text
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { kind: string }).kind),
  );
  for (const kind of [
    "proxy.decision",
    "tls.session",
    "wire.frame",
    "kernel.ruleset",
    "kernel.result",
    "wire.dns",
    "kms.event",
    "scenario",
  ])
    expect([...kinds], kind).toContain(kind);
  // llrun's `bind=*` is logged as "*", never null (which no reader could read as a port).
  expect(text).toMatch(/"kind":"kernel\.ruleset"[^\n]*"bind":\["\*"\]/);
  expect(text).not.toMatch(/"bind":\[null\]/);
  policyPath = join(dir, "policy.json");
  await writeFile(policyPath, enforced);

  // A share link replays the rows and the agent run; the card says what it leaves behind (the tour's and the hand-typed commands).
  await page.locator("#share").click();
  await expect(page.getByTestId("share-left-out")).toContainText(/^Not in this link: \d+ verdicts from commands typed by hand/);
  await expect(page.getByTestId("share-left-out")).toContainText("pastebin.com");
});

test("the page's Replay panel replays the downloaded file with no error, and says what it left out", async () => {
  const page = pg.page;
  await page.locator('[data-tab="replay"]').click();
  await page.getByTestId("log-replay-file").setInputFiles(logPath);
  const summary = page.getByTestId("log-replay-summary");
  await expect(summary).toContainText("requests re-decided");
  await expect(summary).not.toContainText("not replayed");
  await expect(summary).toContainText(/\d+ lines of \d+ kinds not needed for a replay/);
  // Under the enforced policy that made the rows, only the request report mode served changes.
  await expect(page.locator('[data-testid="log-replay-rows"] tr[data-outcome="newly-refused"]').first()).toContainText("co.uk");
  const cli = await tab("policy", "replay", policyPath, logPath);
  expect(cli.stderr).toBe("");
  const lines = cli.stdout.trim().split("\n");
  const changed = lines.filter((line) => / (newly-refused|newly-allowed): /.test(line));
  expect(changed.length).toBeGreaterThan(0);
  for (const line of changed) expect(line).toContain("co.uk");
  expect(cli.code).toBe(1);
  const [cliSummary, cliSkipped] = lines.slice(-2);
  expect(cliSkipped).toMatch(/^\d+ lines of \d+ kinds not needed for a replay/);
  expect(await summary.textContent()).toBe(`${cliSummary}; ${cliSkipped}`);
  expect(await page.getByTestId("log-replay-rows").locator("tbody tr").count()).toBe(lines.length - 2);

  // Another proxy's log dropped on the same panel: smokescreen's decision lines are re-decided too.
  await page.getByTestId("log-replay-file").setInputFiles(join(root, "src/policy-tools/formats/testdata/smokescreen-billing.jsonl"));
  await expect(summary).toContainText("8 requests re-decided");
  await expect(summary).toContainText(
    '1 line of 1 kind not needed for a replay (another proxy\'s: "smokescreen CANONICAL-PROXY-CN-CLOSE")',
  );
});

test("npx tab policy learn drafts from the downloaded log what the page drafts from its session, and neither drafts the wildcard", async () => {
  const page = pg.page;
  const cli = await tab("policy", "learn", logPath, "--base", policyPath);
  expect(cli.code).toBe(0);
  const drafted = JSON.parse(cli.stdout) as { hosts: { host: string }[] };
  expect(drafted.hosts.map((r) => r.host)).toContain("api.github.com");
  expect(JSON.stringify(drafted)).not.toMatch(/co\.uk/);
  expect(cli.stderr).toMatch(/not learned: line \d+ \S*co\.uk\S*: the host "[^"]*co\.uk" contains a wildcard/);
  expect(cli.stderr).toMatch(/\d+ lines of \d+ kinds not needed for a draft/);

  await page.locator('[data-tab="policy"]').click();
  // Policy edits are not kept in the browser, and the panel says so.
  await expect(page.getByTestId("policy-not-kept")).toContainText("a reload starts from the default policy");
  await page.getByTestId("policy-draft").click();
  const status = page.getByTestId("policy-draft-status");
  await expect(status).toContainText("drafted from");
  await expect(status).toContainText("contains a wildcard");
  // The rule changes the page offers are the ones the CLI prints, rule for rule.
  const pageChanges = (await page.getByTestId("policy-draft-changes").locator("li").allTextContents()).map((t) => t.trim()).sort();
  const cliChanges = cli.stderr
    .split("\n")
    .filter((line) => /^[+~-] /.test(line))
    .sort();
  expect(pageChanges).toEqual(cliChanges);
  const learnedFrom = /learned from (\d+) requests/.exec(cli.stderr)?.[1];
  await expect(status).toContainText(`drafted from ${learnedFrom} requests`);
});

test("another proxy's policy file opened on the Policy panel is applied, with what it cannot express named", async () => {
  const page = pg.page;
  await page.locator('[data-tab="policy"]').click();
  await page.getByTestId("policy-import-file").setInputFiles(join(root, "src/policy-tools/formats/testdata/srt-settings.json"));
  const status = page.getByTestId("policy-import-status");
  await expect(status).toContainText("read as sandbox-runtime (Claude Code) settings");
  await expect(status).toContainText("network.allowUnixSockets not imported");
  const hosts = await page.evaluate(() => window.__tab?.policy.current().hosts.map((r) => r.host));
  expect(hosts).toEqual(["api.github.com", "registry.npmjs.org", "*.pythonhosted.org", "pypi.org"]);
  const sources = await page.evaluate(() => window.__tab?.log.ofKind("policy.change").map((e) => e.source));
  expect(sources?.at(-1)).toBe("policy import (sandbox-runtime)");
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground } from "./support/guest";

// Reproducing a verdict from another proxy in the page: its policy opened under the Policy
// panel, its log dropped on the Replay panel and re-decided with zero changed verdicts, then a
// policy drafted from the log in the format it came in (a smokescreen ACL, an awf config, an
// OpenShell policy; sandbox-runtime has no log, so its session is this page's log, drafted as
// settings by choosing the format). Where the translated policy decides differently from the
// proxy, the row says so. Each format's panel is pictured for docs/guide.md. One page for the file.
test.describe.configure({ mode: "serial" });

const testdata = join(import.meta.dirname, "..", "src", "policy-tools", "formats", "testdata");
let pg: Playground;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser);
});
test.afterAll(async () => {
  await closePlayground(pg);
});

async function openPolicy(page: Page, file: string, role = ""): Promise<void> {
  await page.locator('[data-tab="policy"]').click();
  await page.getByTestId("policy-import-role").fill(role);
  await page.getByTestId("policy-import-file").setInputFiles(join(testdata, file));
  await expect(page.getByTestId("policy-import-status")).toContainText(`applied ${file}, read as`);
}

/** Drops a file on the Replay panel's log box, as a reader drags it from their file manager. */
async function dropLog(page: Page, file: string): Promise<void> {
  await page.locator('[data-tab="replay"]').click();
  const target = page.getByTestId("log-replay-input");
  const dataTransfer = await page.evaluateHandle(
    ({ text, name }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], name, { type: "application/x-ndjson" }));
      return transfer;
    },
    { text: readFileSync(join(testdata, file), "utf8"), name: file },
  );
  await target.dispatchEvent("drop", { dataTransfer });
}

interface Case {
  name: string;
  policy: string;
  role?: string;
  log: string;
  /** The summary's "read as …" (null: this project's own log). */
  readAs: string | null;
  requests: number;
  /** The draft format chosen (empty: the log's own). */
  draftFormat: string;
  draftFile: string;
  draftStart: RegExp;
  picture: string;
  /** The Policy panel's "Save the policy" format: the policy saved in it, opened again, decides the log the same way. */
  exportFormat: string;
}

const CASES: Case[] = [
  {
    name: "smokescreen",
    policy: "smokescreen-acl.yaml",
    role: "billing",
    log: "smokescreen-billing.jsonl",
    readAs: "smokescreen CANONICAL-PROXY-DECISION lines",
    requests: 8,
    draftFormat: "",
    draftFile: "drafted-acl.yaml",
    draftStart: /^version: v1\n/,
    picture: "replay-smokescreen.png",
    exportFormat: "smokescreen",
  },
  {
    name: "gh-aw-firewall",
    policy: "awf-config.yaml",
    log: "awf-audit.jsonl",
    readAs: "a gh-aw-firewall audit.jsonl",
    requests: 9,
    draftFormat: "",
    draftFile: "drafted-awf-config.yaml",
    draftStart: /^network:\n {2}allowDomains:\n/,
    picture: "replay-awf.png",
    exportFormat: "awf",
  },
  {
    name: "OpenShell",
    policy: "openshell-policy.yaml",
    log: "openshell-ocsf.jsonl",
    readAs: "OpenShell OCSF JSON lines",
    requests: 10,
    draftFormat: "",
    draftFile: "drafted-openshell-policy.yaml",
    draftStart: /^version: 1\nnetwork_policies:\n/,
    picture: "replay-openshell.png",
    exportFormat: "openshell",
  },
  {
    name: "sandbox-runtime",
    policy: "srt-settings.json",
    log: "srt-session.jsonl",
    readAs: null,
    requests: 7,
    draftFormat: "sandbox-runtime",
    draftFile: "drafted-srt-settings.json",
    draftStart: /^\{\n {2}"network": \{\n {4}"allowedDomains": \[/,
    picture: "replay-sandbox-runtime.png",
    exportFormat: "sandbox-runtime",
  },
];

for (const c of CASES)
  test(`${c.name}: the policy opened, the log dropped on the Replay panel re-decides with zero changed verdicts, and drafts back`, async () => {
    const page = pg.page;
    await openPolicy(page, c.policy, c.role);
    await dropLog(page, c.log);
    const summary = page.getByTestId("log-replay-summary");
    await expect(summary).toContainText(`${c.requests} requests re-decided:`);
    await expect(summary).toContainText("0 newly refused, 0 newly allowed");
    if (c.readAs) await expect(summary).toContainText(`read as ${c.readAs}`);
    else await expect(summary).not.toContainText("read as");
    const rows = page.getByTestId("log-replay-rows");
    await expect(rows.locator("tbody tr")).toHaveCount(c.requests);
    await expect(rows.locator('tr[data-outcome="newly-refused"], tr[data-outcome="newly-allowed"]')).toHaveCount(0);

    await page.getByTestId("log-replay-draft-format").selectOption(c.draftFormat);
    const downloading = page.waitForEvent("download");
    await page.getByTestId("log-replay-draft").click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(c.draftFile);
    const drafted = readFileSync(await download.path(), "utf8");
    expect(drafted).toMatch(c.draftStart);
    await expect(page.getByTestId("log-replay-draft-text")).toHaveText(drafted);
    await page.getByTestId("log-replay").screenshot({ path: `docs/screenshots/${c.picture}` });

    // Export: the policy in force saved in the proxy's format, opened again, decides the same
    // log the same way (zero changed verdicts), as `policy export --format` then `import` does.
    await page.locator('[data-tab="policy"]').click();
    await page.getByTestId("policy-export-format").selectOption(c.exportFormat);
    await page.getByTestId("policy-export-role").fill(c.role ?? "");
    const saving = page.waitForEvent("download");
    await page.getByTestId("policy-export").click();
    const saved = await saving;
    await expect(page.getByTestId("policy-export-status")).toContainText(`saved ${saved.suggestedFilename()}, as`);
    const savedText = readFileSync(await saved.path(), "utf8");
    await page.getByTestId("policy-import-role").fill(c.role ?? "");
    await page
      .getByTestId("policy-import-file")
      .setInputFiles({ name: saved.suggestedFilename(), mimeType: "text/plain", buffer: Buffer.from(savedText) });
    await expect(page.getByTestId("policy-import-status")).toContainText(`applied ${saved.suggestedFilename()}, read as`);
    await expect(page.getByTestId("log-replay-draft-text")).not.toHaveAttribute("hidden");
    await dropLog(page, c.log);
    // A new replay hides the draft shown for the last one: the summary below is the new one's.
    await expect(page.getByTestId("log-replay-draft-text")).toHaveAttribute("hidden");
    await expect(summary).toContainText(`${c.requests} requests re-decided:`);
    await expect(summary).toContainText("0 newly refused, 0 newly allowed");
  });

test("where the translated policy decides differently from the proxy, the Replay panel's row says so", async () => {
  const page = pg.page;
  await openPolicy(page, "awf-config.yaml");
  await page.locator('[data-tab="replay"]').click();
  // awf's github.com allows api.github.com; the imported policy cannot make awf's gist.github.com hole, so it fails closed.
  await page
    .getByTestId("log-replay-input")
    .fill(
      '{"ts":1761074374.646,"client":"172.30.0.20","host":"api.github.com:443","dest":"140.82.114.22:443","method":"CONNECT","status":200,"decision":"TCP_TUNNEL","url":"api.github.com:443"}\n',
    );
  await page.getByTestId("log-replay-run").click();
  await expect(page.getByTestId("log-replay-summary")).toContainText("1 newly refused");
  const row = page.getByTestId("log-replay-rows").locator('tr[data-outcome="newly-refused"]');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("CONNECT api.github.com:443");
  await expect(row).toContainText("host-not-allowed");
});

test("a log opened where a policy goes is not applied, and the Policy panel says where it belongs", async () => {
  const page = pg.page;
  await page.locator('[data-tab="policy"]').click();
  await page.getByTestId("policy-import-file").setInputFiles(join(testdata, "openshell-ocsf.jsonl"));
  await expect(page.getByTestId("policy-import-status")).toContainText(
    "not applied: openshell-ocsf.jsonl is a log (OpenShell OCSF JSON lines), not a policy: drop it on the Replay panel",
  );
});

import { createHash } from "node:crypto";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { type RoutedLibrary, routeGithubLibrary } from "./support/github-library";
import { openPlayground } from "./support/guest";
import { type ResolverRunSummary, resolverRunAfter } from "./support/resolver-runs";

// The org allowlist in the page: a pinned harness from a real library
// (raw.githubusercontent.com, its skill a github.com/…/tree/… directory listed through
// api.github.com — here answered by Playwright routing) is refused `not-allowlisted` until the
// operator allows its prefixes in the Resolver panel; a share link may only propose prefixes,
// and nothing it proposes is used before the operator accepts. The page boots its guest on
// each load; these checks do not wait for it.
test.describe.configure({ mode: "serial", timeout: 300_000 });

const DEFAULTS = ["https://github.com/example-org/agent-library/", "https://raw.githubusercontent.com/example-org/agent-library/"];
const hashOf = (entries: string[]) =>
  createHash("sha256")
    .update(JSON.stringify([...new Set(entries)].sort()))
    .digest("hex");

let context: BrowserContext;
let page: Page;
let library: RoutedLibrary;

type RunSummary = ResolverRunSummary;

const nextSeq = () => page.evaluate(() => window.__tab?.log.nextSeq ?? 0);

const runAfter = (from: number): Promise<RunSummary> => resolverRunAfter(page, from);

async function openPage(path = "./"): Promise<void> {
  await page.goto(path);
  await page.waitForFunction(() => window.__tab?.features.resolver !== undefined);
}

async function resolveTyped(harness: string): Promise<RunSummary> {
  const from = await nextSeq();
  await page.locator("#harness-url").fill(harness);
  await page.locator("#harness-url").press("Enter");
  return runAfter(from);
}

const allowlistEvents = () =>
  page.evaluate(() =>
    (window.__tab?.log.ofKind("resolver.allowlist") ?? []).map((e) => ({
      oldHash: e.oldHash,
      newHash: e.newHash,
      source: e.source,
      added: e.added,
      removed: e.removed,
    })),
  );

async function openAllowlist(): Promise<void> {
  await page.locator("#tab-resolver").click();
  const details = page.getByTestId("org-allowlist");
  if ((await details.getAttribute("open")) === null) await page.getByTestId("allowlist-summary").click();
  await expect(page.getByTestId("allowlist-editor")).toBeVisible();
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  // Unplanned requests are refused first, so the library's routes (registered after) take
  // precedence: only the page's origin and the routed library answer.
  ({ context, page } = await openPlayground(browser, null, {
    warm: false,
    refuseUnplanned: true,
    setup: async (context) => {
      library = await routeGithubLibrary(context);
    },
  }));
  await openPage();
});
test.afterAll(async () => {
  await context?.close();
});

test("the Resolver panel shows the default org allowlist: the bundled sample's", async () => {
  await openAllowlist();
  await expect(page.getByTestId("allowlist-editor")).toHaveValue(`${DEFAULTS.join("\n")}\n`);
  await expect(page.getByTestId("allowlist-hash")).toHaveText(`sha256 ${hashOf(DEFAULTS)}`);
  await expect(page.getByTestId("allowlist-summary")).toHaveText("Org allowlist: 2 prefixes");
  await expect(page.getByTestId("allowlist-notice")).toBeHidden();
});

test("before the edit, the pinned harness on raw.githubusercontent.com is refused not-allowlisted and nothing is fetched", async () => {
  const run = await resolveTyped(library.harnessUrl);
  expect(run.phase).toBe("failed");
  const root = run.steps.find((s) => s.field === "harness");
  expect(root).toMatchObject({ code: "not-allowlisted", allowed: false });
  expect(root?.reason).toContain(DEFAULTS[1]);
  expect(library.served).toEqual([]);
});

test("a path-confusion spelling in the editor is refused with its line, and cannot be saved", async () => {
  await openAllowlist();
  const editor = page.getByTestId("allowlist-editor");
  await editor.fill(`${DEFAULTS.join("\n")}\nhttps://raw.githubusercontent.com/example-org/agent-library/../../acme-labs/\n`);
  await expect(page.getByTestId("allowlist-status")).toContainText("line 3:");
  await expect(page.getByTestId("allowlist-status")).toContainText(
    "not in normal form; write it as https://raw.githubusercontent.com/acme-labs/",
  );
  await expect(page.getByTestId("allowlist-save")).toBeDisabled();
  expect(await allowlistEvents()).toEqual([]);
});

test("the org allowlist edited to allow the library's prefixes: one logged change, then the same harness resolves from GitHub", async () => {
  await openAllowlist();
  const next = [...DEFAULTS, ...library.prefixes];
  await page.getByTestId("allowlist-editor").fill(`${next.join("\n")}\n`);
  await expect(page.getByTestId("allowlist-status")).toHaveText("valid: 4 prefixes, not saved yet");
  await page.getByTestId("allowlist-save").click();
  await expect(page.getByTestId("allowlist-status")).toHaveText("saved: used by the next resolve");
  await expect(page.getByTestId("allowlist-hash")).toHaveText(`sha256 ${hashOf(next)}`);
  expect(await allowlistEvents()).toEqual([
    { oldHash: hashOf(DEFAULTS), newHash: hashOf(next), source: "resolver panel", added: library.prefixes, removed: [] },
  ]);
  // The change is a row in the Resolver panel's table, too.
  await expect(page.locator("#panel-resolver tbody tr[data-kind='resolver.allowlist']")).toHaveCount(1);

  const run = await resolveTyped(library.harnessUrl);
  expect(run.phase).toBe("done");
  expect(run.steps.every((s) => s.allowed)).toBe(true);
  expect(run.steps.find((s) => s.field === "harness")).toMatchObject({ code: "served" });
  expect(run.steps.find((s) => s.field === "skills[0]")).toMatchObject({ code: "served", sha256: library.skillTreeHash });
  // Through the page's own fetch to the real hosts (routed): the harness, its relative agent,
  // the skill's listing on api.github.com and each of its files on raw.githubusercontent.com.
  const raw = `https://raw.githubusercontent.com/${library.owner}/${library.repo}/${library.commit}/`;
  expect(library.served).toEqual(
    expect.arrayContaining([
      `${raw}harness/review.yaml`,
      `${raw}agents/reviewer.md`,
      `https://api.github.com/repos/${library.owner}/${library.repo}/git/trees/${library.commit}?recursive=1`,
      `${raw}skills/lint/SKILL.md`,
      `${raw}skills/lint/scripts/check.sh`,
    ]),
  );
});

test("the allowlist is kept across a reload, and the share button carries the extra prefixes as a proposal", async () => {
  await openPage();
  await openAllowlist();
  await expect(page.getByTestId("allowlist-editor")).toHaveValue(`${[...DEFAULTS, ...library.prefixes].join("\n")}\n`);
  await page.locator("#harness-url").fill(library.harnessUrl);
  await page.locator("#share").click();
  const link = new URL(await page.locator(".share-output").inputValue());
  expect(link.searchParams.getAll("allow-prefix")).toEqual(library.prefixes);
  expect(link.searchParams.get("harness")).toBe(library.harnessUrl);
});

test("a saved allowlist that no longer parses falls back to the default, with a visible notice", async () => {
  await page.evaluate(() => localStorage.setItem("linux-in-a-tab:org-allowlist", JSON.stringify({ version: 1, entries: ["http://x/"] })));
  await openPage();
  await expect(page.getByTestId("allowlist-notice")).toContainText("the saved org allowlist was not valid");
  await openAllowlist();
  await expect(page.getByTestId("allowlist-editor")).toHaveValue(`${DEFAULTS.join("\n")}\n`);
  // Reset forgets the bad data: the next visit starts clean.
  await page.getByTestId("allowlist-reset").click();
  await expect(page.getByTestId("allowlist-notice")).toBeHidden();
  expect(await page.evaluate(() => localStorage.getItem("linux-in-a-tab:org-allowlist"))).toBeNull();
});

const sharedLink = () =>
  `./?harness=${encodeURIComponent(library.harnessUrl)}&${library.prefixes.map((p) => `allow-prefix=${encodeURIComponent(p)}`).join("&")}`;

test("a shared link proposing prefixes asks first; Reject leaves the allowlist unchanged and the harness is not-allowlisted", async () => {
  await openPage(sharedLink());
  const card = page.getByRole("alertdialog", { name: "Allow the prefixes this link proposes?" });
  await expect(card).toBeVisible();
  for (const prefix of library.prefixes) await expect(card).toContainText(prefix);
  // Nothing is resolved while the operator has not answered.
  expect(await page.evaluate(() => window.__tab?.log.ofKind("resolver.run").length)).toBe(0);
  const served = library.served.length;
  await card.getByRole("button", { name: "Reject" }).click();
  const run = await runAfter(0);
  expect(run.harness).toBe(library.harnessUrl);
  expect(run.phase).toBe("failed");
  expect(run.steps.find((s) => s.field === "harness")).toMatchObject({ code: "not-allowlisted", allowed: false });
  await expect(card).toBeHidden();
  await openAllowlist();
  await expect(page.getByTestId("allowlist-editor")).toHaveValue(`${DEFAULTS.join("\n")}\n`);
  await expect(page.getByTestId("allowlist-hash")).toHaveText(`sha256 ${hashOf(DEFAULTS)}`);
  expect(await allowlistEvents()).toEqual([]);
  expect(library.served.length).toBe(served);
});

test("the same link, accepted: the prefixes are added as one logged change and the harness resolves", async () => {
  await openPage(sharedLink());
  // An empty cache: what the accepted prefixes allow is fetched now, not served from the last test's resolve.
  await page.evaluate(() => window.__tab?.features.resolver?.cas.clear());
  const served = library.served.length;
  const card = page.getByRole("alertdialog", { name: "Allow the prefixes this link proposes?" });
  await card.getByRole("button", { name: "Accept" }).click();
  const run = await runAfter(0);
  expect(run.phase).toBe("done");
  expect(run.steps.every((s) => s.allowed)).toBe(true);
  expect(run.steps.find((s) => s.field === "skills[0]")).toMatchObject({ code: "served", sha256: library.skillTreeHash });
  expect(library.served.length).toBeGreaterThanOrEqual(served + 5);
  const next = [...DEFAULTS, ...library.prefixes];
  expect(await allowlistEvents()).toEqual([
    { oldHash: hashOf(DEFAULTS), newHash: hashOf(next), source: "share link (accepted)", added: library.prefixes, removed: [] },
  ]);
  await openAllowlist();
  await expect(page.getByTestId("allowlist-editor")).toHaveValue(`${next.join("\n")}\n`);
});

test("a link proposing only what is already allowed asks nothing", async () => {
  await openPage(sharedLink());
  const run = await runAfter(0);
  expect(run.phase).toBe("done");
  await expect(page.getByTestId("allowlist-proposal")).toBeHidden();
});

import { expect, type Page, test } from "@playwright/test";
import {
  BOOT_TIMEOUT_MS,
  closePlayground,
  commandCount,
  commandEnd,
  openPlayground,
  type Playground,
  runInGuest,
  typeInTerminal,
} from "./support/guest";
import { scenarioEnded } from "./support/scenarios";
import { refuseUnplanned, routeZen } from "./support/upstreams";

// The console protocol: the guest's prompt carries OSC 133 marks, so the page knows
// when the shell is idle and when each command ends. A scenario clicked while a person's
// command runs waits for it, then runs to its own end (its own decisions on the log), and the
// share link's verdict sequence is the rows'. One boot for the file.
test.describe.configure({ mode: "serial" });

let pg: Playground;
test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser);
  await refuseUnplanned(pg.context);
  await routeZen(pg.context, "Mind your words, they are important.");
});
test.afterAll(async () => {
  await closePlayground(pg);
});

interface Seen {
  seq: number;
  kind: string;
  id?: string;
  phase?: string;
  code?: string;
  by?: string;
  message?: string;
}

/** Scenario events and verdicts since `from`, in log order. */
const seenSince = (page: Page, from: number) =>
  page.evaluate(
    (from) =>
      (window.__tab?.log.events() ?? []).flatMap((e): Seen[] => {
        if (e.seq < from) return [];
        if (e.kind === "scenario") return [{ seq: e.seq, kind: e.kind, id: e.id, phase: e.phase, message: e.message }];
        if (e.kind === "proxy.decision" && e.mode !== "own") return [{ seq: e.seq, kind: e.kind, code: e.code, by: e.by }];
        return [];
      }),
    from,
  );

const nextSeq = (page: Page) => page.evaluate(() => window.__tab?.log.nextSeq ?? 0);

/** Waits for scenario `id` to end (done or failed) after `from`; returns its start and end events. */
async function scenarioWindow(page: Page, id: string, from: number): Promise<{ start: Seen; end: Seen }> {
  await scenarioEnded(page, id, from);
  const events = (await seenSince(page, from)).filter((e) => e.kind === "scenario" && e.id === id);
  const start = events.find((e) => e.phase === "start");
  const end = events.find((e) => e.phase !== "start");
  if (!start || !end) throw new Error(`scenario ${id}: no start/end pair in ${JSON.stringify(events)}`);
  return { start, end };
}

/** The verdicts logged inside a window, as `code:by`. */
const verdictsIn = (events: Seen[], w: { start: Seen; end: Seen }) =>
  events.filter((e) => e.kind === "proxy.decision" && e.seq > w.start.seq && e.seq < w.end.seq).map((e) => `${e.code}:${e.by}`);

const shareSequence = (page: Page) => page.evaluate(() => (window.__tab?.features.share?.sequence() ?? []).map((s) => `${s.code}:${s.by}`));

test("a scenario clicked while a typed command runs starts after it, ends after its own decision, and the share link carries its verdict", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  const from = await nextSeq(page);
  const typed = await typeInTerminal(page, "sleep 4; echo user-done");
  await page.locator('[data-scenario="host-not-allowed"]').click();
  // The click waits for the shell, visibly, with a Cancel.
  await expect(page.locator('[data-waiting-scenario="host-not-allowed"]').getByRole("button", { name: "Cancel" })).toBeVisible();
  await expect(page.locator('[data-scenario="host-not-allowed"]')).toHaveAttribute("data-state", "waiting");

  const user = await commandEnd(page, typed);
  expect(user).toEqual({ by: "user", status: 0, output: "user-done\n" });
  const w = await scenarioWindow(page, "host-not-allowed", from);
  expect(w.end.phase).toBe("done");
  // The next command line after the person's is the scenario's, typed by the page.
  const scenarioCommand = await commandEnd(page, typed + 1);
  expect(scenarioCommand.by).toBe("page");
  expect(scenarioCommand.output).toMatch(/403|CONNECT tunnel failed/);
  expect(verdictsIn(await seenSince(page, from), w)).toEqual(["host-not-allowed:proxy"]);
  await expect(page.locator("[data-waiting-scenario]")).toHaveCount(0);

  expect(await shareSequence(page)).toEqual(["host-not-allowed:proxy"]);
  await page.locator("#share").click();
  await expect(page.locator(".share-output")).toHaveValue(/^http/);
  const link = new URL(await page.locator(".share-output").inputValue());
  expect(link.searchParams.get("scenarios")).toBe("host-not-allowed");
  expect(link.searchParams.get("expect")).toBe("host-not-allowed:proxy");
  await page.locator('[data-tab="replay"]').click();
  await expect(page.locator("#panel-replay tbody tr").filter({ hasText: "host-not-allowed" }).first()).toBeVisible();
  // The terminal shows what was typed and what programs printed: no marks, no helper markers.
  await page.screenshot({ path: test.info().outputPath("scenario-after-typed-command.png") });
  const screen = await terminalText(page);
  expect(screen).toContain("user-done");
  expect(screen).not.toMatch(/133;|__BEGIN|__END|TAB-GUEST-READY/);
});

test("two scenarios clicked back to back run one after another, each with its own verdict", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  const from = await nextSeq(page);
  const before = await shareSequence(page);
  await page.locator('[data-scenario="ip-literal"]').click();
  await page.locator('[data-scenario="host-not-allowed"]').click();
  const first = await scenarioWindow(page, "ip-literal", from);
  const second = await scenarioWindow(page, "host-not-allowed", from);
  expect(first.end.seq).toBeLessThan(second.start.seq);
  expect([first.end.phase, second.end.phase]).toEqual(["done", "done"]);
  const events = await seenSince(page, from);
  expect(verdictsIn(events, first)).toEqual(["ip-literal:proxy"]);
  expect(verdictsIn(events, second)).toEqual(["host-not-allowed:proxy"]);
  expect(await shareSequence(page)).toEqual([...before, "ip-literal:proxy", "host-not-allowed:proxy"]);
});

test("Ctrl+C on the typed command lets the waiting scenario run at once; the scenario still has its own verdict", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  const from = await nextSeq(page);
  const typed = await typeInTerminal(page, "sleep 600; echo never");
  await page.locator('[data-scenario="host-not-allowed"]').click();
  await expect(page.locator('[data-waiting-scenario="host-not-allowed"]')).toBeVisible();
  await page.locator("#terminal").click();
  await page.keyboard.press("Control+C");
  const user = await commandEnd(page, typed);
  expect(user.status).toBe(130);
  expect(user.output).not.toContain("never");
  const w = await scenarioWindow(page, "host-not-allowed", from);
  expect(w.end.phase).toBe("done");
  expect(verdictsIn(await seenSince(page, from), w)).toEqual(["host-not-allowed:proxy"]);
});

test("Ctrl+C during a scenario's own command interrupts it: logged as interrupted with exit status 130, not done", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  // The allowed GET's upstream never answers, so its curl is still waiting when Ctrl+C comes.
  await pg.context.route("https://api.github.com/zen", () => undefined);
  const sharedBefore = await shareSequence(page);
  const from = await nextSeq(page);
  const count = await commandCount(page);
  await page.locator('[data-scenario="served"]').click();
  await page.waitForFunction(
    (from) => window.__tab?.log.events().some((e) => e.seq >= from && e.kind === "proxy.decision" && e.mode === "connect"),
    from,
    { timeout: 120_000 },
  );
  await page.locator("#terminal").click();
  await page.keyboard.press("Control+C");
  const w = await scenarioWindow(page, "served", from);
  expect(w.end).toMatchObject({ phase: "interrupted", message: expect.stringContaining("interrupted: exit status 130") });
  expect(await commandEnd(page, count)).toMatchObject({ by: "page", status: 130 });
  // The console is idle again: the next command runs.
  expect(await runInGuest(page, "echo after-$((1+1))")).toEqual({ output: "after-2\n", status: 0 });
  // A row stopped by Ctrl+C is not what the row produces: the share link leaves it out.
  expect(await shareSequence(page)).toEqual(sharedBefore);
  await page.locator("#share").click();
  await expect(page.locator(".share-output")).toHaveValue(/^http/);
  const link = new URL(await page.locator(".share-output").inputValue());
  expect(link.searchParams.get("scenarios")?.split(",") ?? []).not.toContain("served");
  await pg.context.unroute("https://api.github.com/zen");
});

test("keys a person types ahead during a command are theirs: the waiting scenario runs only after that line ran", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  const from = await nextSeq(page);
  const typed = await typeInTerminal(page, "sleep 3");
  // Typed while `sleep` runs, with no Enter: the shell shows it on its next prompt's line.
  await page.keyboard.type("echo ahead-");
  await page.locator('[data-scenario="host-not-allowed"]').click();
  await expect(page.locator('[data-waiting-scenario="host-not-allowed"]')).toBeVisible();
  expect((await commandEnd(page, typed)).status).toBe(0);
  // The prompt holds the person's half line: the shell is being edited, so the scenario keeps
  // waiting rather than typing onto it.
  await page.waitForFunction(() => window.__tab?.guest?.console.shell.phase === "editing", undefined, { timeout: 30_000 });
  expect(await commandCount(page)).toBe(typed + 1);
  await expect(page.locator('[data-waiting-scenario="host-not-allowed"]')).toBeVisible();
  // The click on the row moved the focus to its button: back to the terminal to finish the line.
  await page.locator("#terminal").click();
  await page.keyboard.type("typed\n");
  const theirs = await commandEnd(page, typed + 1);
  expect(theirs).toEqual({ by: "user", status: 0, output: "ahead-typed\n" });
  const w = await scenarioWindow(page, "host-not-allowed", from);
  expect(w.end.phase).toBe("done");
  const scenarioCommand = await commandEnd(page, typed + 2);
  expect(scenarioCommand.by).toBe("page");
  expect(scenarioCommand.output).toMatch(/403|CONNECT tunnel failed/);
});

test("Run agent while a person's command runs waits with a Cancel; cancelled, it types nothing and is not shared", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  const sharedBefore = await shareSequence(page);
  const from = await nextSeq(page);
  // The Run agent button sits in the Resolver panel's header; the run then shows in the Runner panel.
  await page.locator('[data-tab="resolver"]').click();
  const typed = await typeInTerminal(page, "sleep 600; echo never");
  await page.locator("[data-run-agent]").click();
  const chip = page.locator("#panel-runner [data-waiting-run]");
  await expect(chip.getByRole("button", { name: "Cancel" })).toBeVisible({ timeout: 120_000 });
  await chip.getByRole("button", { name: "Cancel" }).click();
  expect((await scenarioEnded(page, "run-*", from, 60_000)).phase).toBe("cancelled");
  await expect(page.locator("[data-waiting-run]")).toHaveCount(0);
  await expect(page.locator("[data-run-agent]")).toBeEnabled();
  // The person's command was never typed onto: it runs until they stop it.
  await page.locator("#terminal").click();
  await page.keyboard.press("Control+C");
  expect(await commandEnd(page, typed)).toMatchObject({ by: "user", status: 130 });
  expect(await commandCount(page)).toBe(typed + 1);
  expect(await shareSequence(page)).toEqual(sharedBefore);
});

/** What the terminal shows (xterm's buffer, all lines). */
function terminalText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const rows = document.querySelectorAll("#terminal .xterm-rows > div");
    return [...rows].map((r) => r.textContent ?? "").join("\n");
  });
}

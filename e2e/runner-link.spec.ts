import { createHash } from "node:crypto";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { answerLinkCard } from "./support/consent";
import { openPlayground, waitForGuest } from "./support/guest";
import { scenarioEnded } from "./support/scenarios";
import { CORS, refuseUnplanned, routeZen } from "./support/upstreams";

// A shared link to a harness runs its agent in the guest. The sender
// opens a harness by its pinned URL, runs its agent, and shares; a fresh browser context
// (empty IndexedDB) opens the link, runs the same agent, and gets the same verdict sequence.
// The harness and its agent are published on a pinned origin, fulfilled here by
// Playwright routing (tests never reach the internet).
test.describe.configure({ mode: "serial" });

const COMMIT = "5e1dc0ffee5e1dc0ffee5e1dc0ffee5e1dc0ffee";
const BASE = `https://raw.githubusercontent.com/example-org/agent-library/${COMMIT}`;
const AGENT = "---\nname: linked\ndescription: runs from a shared link\n---\n\nFollow the harness's steps.\n";
const HARNESS = `# Published by URL; relative references resolve on the same pinned origin.
agent: agents/linked.md
agent_steps:
  - context
  - post https://api.github.com/zen
  - fetch https://pastebin.com/raw/abc123
  - connect 93.184.216.34 443
  - done ran from a shared link
timeout_minutes: 5
allowed_remote_resources:
  - https://raw.githubusercontent.com/example-org/agent-library/
`;
/** What the agent's steps meet: served by value, refused by the proxy, denied by the kernel. */
const AGENT_SAW = ["start null", "context ok", "post served", "fetch refused", "connect denied", "done ok", "finished null"];
const PINNED = `${BASE}/harness/linked.yaml#sha256=${createHash("sha256").update(HARNESS).digest("hex")}`;

async function route(context: BrowserContext): Promise<void> {
  await refuseUnplanned(context);
  const files: Record<string, string> = { [`${BASE}/harness/linked.yaml`]: HARNESS, [`${BASE}/agents/linked.md`]: AGENT };
  await context.route(`${BASE}/**`, (r) => {
    const body = files[r.request().url()];
    return body === undefined
      ? r.fulfill({ status: 404, headers: CORS, body: "not found" })
      : r.fulfill({ status: 200, headers: CORS, body });
  });
  await routeZen(context, "Half measures are as bad as nothing at all.");
}

/** Waits for the next agent run to end and returns its outcome message. */
async function runEnded(page: Page, from: number): Promise<string> {
  return (await scenarioEnded(page, "run-*", from, 300_000)).message;
}

const agentLines = (page: Page, from: number) =>
  page.evaluate(
    (f) =>
      window.__tab?.log
        .events()
        .filter((e) => e.seq >= f && e.kind === "runner.step" && e.source === "tab-agent")
        .map((e) => (e.kind === "runner.step" ? `${e.step} ${e.outcome}` : "")) ?? [],
    from,
  );

test("a share link to a harness runs its agent in a fresh context, with the sender's verdict sequence", async ({ browser }) => {
  test.setTimeout(900_000);
  const sender = await openPlayground(browser);
  await route(sender.context);
  const from = await sender.page.evaluate(() => window.__tab?.log.nextSeq ?? 0);
  await sender.page.locator("#harness-url").fill(PINNED);
  await sender.page.locator('[data-tab="resolver"]').click();
  await sender.page.locator("[data-run-agent]").click();
  expect(await runEnded(sender.page, from)).toBe("outcome=ok stage=done status=0");
  expect(await agentLines(sender.page, from)).toEqual(AGENT_SAW);

  await sender.page.locator("#share").click();
  // The link is built asynchronously (the policy is deflated): wait for it to appear.
  await expect(sender.page.locator(".share-output")).toHaveValue(/^http/);
  const link = await sender.page.locator(".share-output").inputValue();
  expect(new URL(link).searchParams.get("harness")).toBe(PINNED);
  expect(new URL(link).searchParams.get("scenarios")).toBe("agent");
  expect(new URL(link).searchParams.get("expect")).toContain("landlock-denied:kernel");
  await sender.context.close();

  const { context: receiverContext, page: receiver } = await openPlayground(browser, link, { setup: route });
  await answerLinkCard(receiver);
  await receiver.evaluate(async () => {
    await window.__tab?.features.share?.replayed;
  });
  await expect(receiver.getByTestId("replay-verdict")).toHaveText(/The replay produced the sender's verdict sequence/);
  expect(await agentLines(receiver, 0)).toEqual(AGENT_SAW);

  // The plain form of the link, `?harness=…&run=1`, runs the agent too (the state saved above restores).
  await receiver.goto(`./?harness=${encodeURIComponent(PINNED)}&run=1`);
  await waitForGuest(receiver);
  await answerLinkCard(receiver);
  expect(await runEnded(receiver, 0)).toBe("outcome=ok stage=done status=0");
  expect(await agentLines(receiver, 0)).toContain("connect denied");
  await receiverContext.close();
});

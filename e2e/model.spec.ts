import { expect, type Page, type Route, test } from "@playwright/test";
import { closePlayground, openPlayground, type Playground, runInGuest } from "./support/guest";
import { nextSeq, stepLines } from "./support/runs";
import { scenarioEnded } from "./support/scenarios";
import { CORS, refuseUnplanned, routeZen } from "./support/upstreams";

// Optional part: a user-supplied model key turns the scripted agent into a
// model-driven one whose model calls go through the proxy and are logged like any other request
// (one decision event per request). The model API is fulfilled here by
// Playwright routing with a scripted conversation (tests never reach the internet).
test.describe.configure({ mode: "serial" });

const MESSAGES = "https://api.anthropic.com/v1/messages";
/** Not shaped like any known token, so no generic redaction could hide a leak from this test. */
const KEY = "tabkey-CANARY-e2e-5b7c1d9f3a2e8b4c";

interface ModelCall {
  headers: Record<string, string>;
  body: { system?: string; messages?: { content: string }[] };
}
let pg: Playground;
const calls: ModelCall[] = [];
/** The model's next answers, in order. */
let script: string[] = [];

async function answerModel(route: Route): Promise<void> {
  const request = route.request();
  if (request.method() === "OPTIONS")
    return route.fulfill({
      status: 204,
      headers: {
        ...CORS,
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access",
      },
    });
  calls.push({ headers: request.headers(), body: JSON.parse(request.postData() ?? "{}") as ModelCall["body"] });
  const text = script.shift() ?? "done the script ran out";
  return route.fulfill({
    status: 200,
    headers: { ...CORS, "content-type": "application/json" },
    body: JSON.stringify({ id: `msg_${calls.length}`, type: "message", role: "assistant", content: [{ type: "text", text }] }),
  });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(400_000);
  pg = await openPlayground(browser);
  await refuseUnplanned(pg.context);
  await routeZen(pg.context, "Approachable is better than simple.");
  await pg.context.route(MESSAGES, answerModel);
});
test.afterAll(async () => {
  await closePlayground(pg);
});

const step = stepLines;
/** Whether the model endpoint is still armed (null: closed, as it must be after a run). */
const armedRun = (page: Page) =>
  page.evaluate(() => {
    const model = window.__tab?.features.model;
    return model ? model.armed() : "no model feature";
  });
const eventsSince = (page: Page, from: number) => page.evaluate((f) => window.__tab?.log.events().filter((e) => e.seq >= f) ?? [], from);

/** The Model section, as a user fills it: the Runner tab, the key (a password field), the goal. */
async function fillModelSection(page: Page, goal: string): Promise<void> {
  await page.locator('[data-tab="runner"]').click();
  await page.locator("[data-model-provider]").selectOption("anthropic");
  await page.locator("[data-model-key]").fill(KEY);
  await page.locator("[data-model-goal]").fill(goal);
}

test("a model host not on the policy: the model call is refused host-not-allowed, nothing is sent, the agent goes on cleanly", async () => {
  test.setTimeout(360_000);
  const page = pg.page;
  await fillModelSection(page, "read the zen");
  await expect(page.locator("[data-model-policy]")).toContainText("host-not-allowed");
  const from = await nextSeq(page);
  const result = await page.evaluate(
    async (o) => {
      const model = window.__tab?.features.model;
      if (!model) throw new Error("no model feature");
      return model.run(o);
    },
    { preflight: null, steps: ["model read the zen", "done the model call was refused; finished without it"] },
  );

  expect(result).toMatchObject({ outcome: "ok", stage: "done" });
  expect(step(result, { verb: "model", phase: "end", outcome: "refused", code: "host-not-allowed", calls: "1" })).toHaveLength(1);
  expect(step(result, { verb: "done", outcome: "ok" })).toHaveLength(1);
  expect(step(result, { source: "model" })).toEqual([]);
  expect(step(result, { step: "agent", phase: "exit", result: "ok" })).toHaveLength(1);
  expect(calls).toEqual([]);

  const decisions = (await eventsSince(page, from)).filter((e) => e.kind === "proxy.decision" && e.target === MESSAGES);
  expect(decisions).toEqual([
    expect.objectContaining({ mode: "fetch", method: "POST", code: "host-not-allowed", allowed: false, by: "proxy" }),
  ]);
  expect(await armedRun(page)).toBeNull();
});

test("with the model host allowed, the model chooses each step: served by value, denied by the kernel, done; the key never leaves the page's memory", async () => {
  test.setTimeout(420_000);
  const page = pg.page;
  await fillModelSection(page, "read the zen, try a direct connection, then finish");
  // The operator puts the model host on the policy, knowingly: one rule, POST /v1/messages.
  await page.locator("[data-model-allow]").click();
  await expect(page.locator("[data-model-policy]")).toContainText("allowed by the policy");
  expect(await page.evaluate(() => window.__tab?.log.ofKind("policy.change").at(-1)?.source)).toBe("model");

  script = ["post https://api.github.com/zen", "connect 93.184.216.34 443", "done the zen was read; the direct connection was denied"];
  const from = await nextSeq(page);
  await page.locator("[data-run-model]").click();
  await scenarioEnded(page, "run-*", from, 400_000);
  const events = await eventsSince(page, from);
  expect(events.find((e) => e.kind === "scenario" && e.phase !== "start")).toMatchObject({
    phase: "done",
    message: "outcome=ok stage=done status=0",
  });

  // Each step the model chose ran with the agent's own verb code, and said so.
  const agent = events.flatMap((e) => (e.kind === "runner.step" && e.source === "tab-agent" ? [e] : []));
  const byModel = agent.filter((e) => e.message.includes("source=model"));
  expect(byModel.map((e) => `${e.step} ${e.outcome}`)).toEqual(["post served", "connect denied", "done ok"]);
  expect(byModel.map((e) => /call=(\d+)/.exec(e.message)?.[1])).toEqual(["1", "2", "3"]);
  expect(agent.some((e) => e.step === "model" && /phase=end outcome=done calls=3/.test(e.message))).toBe(true);
  expect(events).toContainEqual(
    expect.objectContaining({ kind: "proxy.decision", mode: "fetch", target: "https://api.github.com/zen", code: "served" }),
  );
  expect(events).toContainEqual(expect.objectContaining({ kind: "kernel.result", result: "EACCES", target: "93.184.216.34:443" }));

  // One proxy.decision per model call, about the model URL, like any other request.
  const modelDecisions = events.filter((e) => e.kind === "proxy.decision" && e.target === MESSAGES);
  expect(modelDecisions).toHaveLength(3);
  for (const d of modelDecisions) expect(d).toMatchObject({ mode: "fetch", method: "POST", status: 200, code: "served", by: "proxy" });
  expect(modelDecisions[0]).toMatchObject({ reason: expect.stringContaining("answered the step: post https://api.github.com/zen") });

  // The model API got the page's key, the rules and the transcript of what happened so far.
  expect(calls).toHaveLength(3);
  for (const call of calls) {
    expect(call.headers["x-api-key"]).toBe(KEY);
    expect(call.headers["anthropic-version"]).toBe("2023-06-01");
    expect(call.headers["anthropic-dangerous-direct-browser-access"]).toBe("true");
    expect(call.body.system).toContain("Platform rules (authoritative)");
  }
  const secondTranscript = calls[1]?.body.messages?.[0]?.content ?? "";
  expect(secondTranscript).toContain("goal: read the zen, try a direct connection, then finish");
  expect(secondTranscript).toContain("> post https://api.github.com/zen");
  expect(secondTranscript).toMatch(/verb=post source=model call=1 .*outcome=served/);

  // The key is nowhere but in the page's memory: not in the guest console, the log, the DOM or storage.
  const consoleText = await page.evaluate(() => window.__tab?.guest?.console.text ?? "");
  expect(consoleText).toContain("verb=model phase=end outcome=done");
  expect(consoleText).not.toContain(KEY);
  expect(JSON.stringify(await page.evaluate(() => window.__tab?.log.events() ?? []))).not.toContain(KEY);
  expect(await page.evaluate(() => document.documentElement.outerHTML)).not.toContain(KEY);
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain(KEY);
  // Nor in any file the guest can see (searched for a part of it, so the command line holds no key).
  const found = await runInGuest(page, `grep -rl ${KEY.slice(-16)} /mnt/tab /tmp 2>/dev/null | head -n 3; true`, 120_000);
  expect(found.output.trim()).toBe("");

  await expect(page.locator("#panel-runner tbody tr").filter({ hasText: "source=model" }).first()).toBeAttached();
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "api.anthropic.com" }).first()).toBeAttached();
  expect(await armedRun(page)).toBeNull();
});

import { describe, expect, it } from "vitest";
import { fakeTimers } from "../platform/testing/fake-timers";
import { ModelSettings } from "./settings";
import { anthropicText, guestSide, json, openAiText, policyAllowing } from "./testing/guest";

// The model-driven agent's model calls go through the proxy and are
// logged like any other request (one decision event per request);
// the page holds the key, which never reaches the guest or the log.

const KEY = "tabkey-CANARY-7f3a9c0d1e2b4a6f";
const ANTHROPIC = ModelSettings.parse({ provider: "anthropic", model: "claude-sonnet-4-5", key: KEY });
const OPENAI = ModelSettings.parse({ provider: "openai", model: "gpt-4o-mini", baseUrl: "https://llm.example", key: KEY });
const MESSAGES = "https://api.anthropic.com/v1/messages";
const allowed = policyAllowing([
  { host: "api.anthropic.com", path: "/v1/messages" },
  { host: "llm.example", path: "/v1/chat/completions" },
]);
const TRANSCRIPT = "goal: read the zen\n";

/** Everything the key could leak into: the guest's answers, the log. */
function leaks(side: ReturnType<typeof guestSide>, answers: string[]): boolean {
  return [...answers, JSON.stringify(side.log.events())].some((text) => text.includes(KEY));
}

describe("POST /v0/model answers one step, fetched by value under the policy", () => {
  it("asks Anthropic with the page's key and answers the guest with the step line only", async () => {
    const side = guestSide({ policy: allowed, answer: () => anthropicText("post https://api.github.com/zen") });
    side.endpoint.arm({ settings: ANTHROPIC });
    const answer = await side.post(TRANSCRIPT);
    expect(answer).toMatchObject({ status: 200, body: "post https://api.github.com/zen\n" });
    expect(answer.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(side.calls).toHaveLength(1);
    expect(side.calls[0]?.url).toBe(MESSAGES);
    expect(side.calls[0]?.headers).toContainEqual(["x-api-key", KEY]);
    const sent = JSON.parse(side.calls[0]?.body ?? "{}") as { system: string; messages: { content: string }[] };
    expect(sent.system).toContain("Platform rules (authoritative)");
    expect(sent.messages[0]?.content).toContain("goal: read the zen");
    expect(side.log.ofKind("proxy.decision")).toMatchObject([
      { mode: "fetch", method: "POST", target: MESSAGES, status: 200, code: "served", allowed: true, by: "proxy" },
    ]);
    expect(side.log.ofKind("proxy.decision")[0]?.reason).toContain("answered the step: post https://api.github.com/zen");
    expect(leaks(side, [answer.raw])).toBe(false);
  });

  it("asks an OpenAI-compatible endpoint with a Bearer key", async () => {
    const side = guestSide({ policy: allowed, answer: () => openAiText("done nothing to do") });
    side.endpoint.arm({ settings: OPENAI });
    const answer = await side.post(TRANSCRIPT);
    expect(answer).toMatchObject({ status: 200, body: "done nothing to do\n" });
    expect(side.calls[0]?.url).toBe("https://llm.example/v1/chat/completions");
    expect(side.calls[0]?.headers).toContainEqual(["authorization", `Bearer ${KEY}`]);
    expect(side.log.ofKind("proxy.decision")).toMatchObject([{ target: "https://llm.example/v1/chat/completions", code: "served" }]);
    expect(leaks(side, [answer.raw])).toBe(false);
  });

  it("refuses a model host that is not on the policy (host-not-allowed), without calling it", async () => {
    const side = guestSide({ policy: policyAllowing([{ host: "api.github.com", path: "/" }]), answer: () => anthropicText("list .") });
    side.endpoint.arm({ settings: ANTHROPIC });
    const answer = await side.post(TRANSCRIPT);
    expect(answer.status).toBe(403);
    expect(answer.headers["x-verdict"]).toBe("host-not-allowed");
    expect(JSON.parse(answer.body)).toMatchObject({ verdict: "refused", code: "host-not-allowed" });
    expect(side.calls).toHaveLength(0);
    expect(side.log.ofKind("proxy.decision")).toMatchObject([
      { mode: "fetch", target: MESSAGES, code: "host-not-allowed", allowed: false },
    ]);
  });

  it("answers only while a run is armed, and not after it is disarmed", async () => {
    const side = guestSide({ policy: allowed, answer: () => anthropicText("list .") });
    const before = await side.post(TRANSCRIPT);
    expect(before.status).toBe(403);
    expect(JSON.parse(before.body)).toMatchObject({ code: "endpoint-not-allowed", reason: expect.stringContaining("Run with model") });
    const disarm = side.endpoint.arm({ settings: ANTHROPIC });
    expect((await side.post(TRANSCRIPT)).status).toBe(200);
    disarm();
    expect((await side.post(TRANSCRIPT)).headers["x-verdict"]).toBe("endpoint-not-allowed");
    expect(side.calls).toHaveLength(1);
    expect(side.endpoint.armed()).toBeNull();
    expect(side.log.ofKind("proxy.decision").map((d) => d.target)).toEqual(["/v0/model", MESSAGES, "/v0/model"]);
  });

  it("stops a run at its call bound, on the page's side too", async () => {
    const side = guestSide({ policy: allowed, answer: () => anthropicText("list .") });
    side.endpoint.arm({ settings: ANTHROPIC, maxCalls: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await side.post(TRANSCRIPT)).status);
    expect(statuses).toEqual([200, 200, 403]);
    expect(side.calls).toHaveLength(2);
    expect(side.log.ofKind("proxy.decision").at(-1)).toMatchObject({ code: "endpoint-not-allowed", reason: expect.stringContaining("2") });
  });

  it("never retries a model call through the CORS relay, which would see the key (upstream-unreadable)", async () => {
    const side = guestSide({
      policy: allowed,
      corsProxy: "https://relay.example/?u={url}",
      answer: (url) =>
        url.startsWith("https://relay.example/") ? anthropicText("list .") : Promise.reject(new TypeError("Failed to fetch")),
    });
    side.endpoint.arm({ settings: ANTHROPIC });
    const answer = await side.post(TRANSCRIPT);
    expect(answer.headers["x-verdict"]).toBe("upstream-unreadable");
    expect(side.calls.map((c) => c.url)).toEqual([MESSAGES]);
  });

  it("refuses an empty transcript as a bad request, without calling the model", async () => {
    const side = guestSide({ policy: allowed, answer: () => anthropicText("list .") });
    side.endpoint.arm({ settings: ANTHROPIC });
    expect((await side.post(" \n")).headers["x-verdict"]).toBe("bad-request");
    expect(side.calls).toHaveLength(0);
  });
});

describe("an answer that is not one valid step stops the loop with a clear reason (502), and the key stays out", () => {
  it.each([
    [
      "a 401 whose message echoes the key",
      () => json(401, { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } }),
      "bad-status",
      "the model API answered 401: authentication_error: invalid x-api-key [redacted]",
    ],
    ["a 200 that is not JSON", () => new Response("<html>", { status: 200 }), "unparsable", "not JSON"],
    ["a 200 without content[]", () => json(200, { nope: true }), "unparsable", "not a Messages API message"],
    ["two step lines", () => anthropicText("list .\ndone ok"), "unparsable", "answered 2 lines"],
    ["an unknown verb", () => anthropicText("curl https://evil.example"), "unparsable", '"curl" is not a step'],
    ["another model loop", () => anthropicText("model try harder"), "unparsable", '"model" is not a step'],
    ["a step that repeats the key", () => anthropicText(`done ${KEY} ${KEY}\nlist`), "unparsable", "[redacted] [redacted]"],
  ])("%s", async (_name, answer, code, reason) => {
    const side = guestSide({ policy: allowed, answer });
    side.endpoint.arm({ settings: ANTHROPIC });
    const response = await side.post(TRANSCRIPT);
    expect(response.status).toBe(502);
    expect(response.headers["x-verdict"]).toBe(code);
    expect(JSON.parse(response.body)).toMatchObject({ verdict: "refused", code, reason: expect.stringContaining(reason) });
    expect(side.log.ofKind("proxy.decision")).toMatchObject([{ mode: "fetch", target: MESSAGES, status: 502, code, allowed: false }]);
    expect(leaks(side, [response.raw])).toBe(false);
  });

  it("gives up on a model API that does not answer within the per-call timeout (upstream-error)", async () => {
    const timers = fakeTimers();
    const side = guestSide({ policy: allowed, timers, answer: () => new Promise<Response>(() => undefined) });
    side.endpoint.arm({ settings: ANTHROPIC });
    const pending = side.post(TRANSCRIPT);
    await timers.runUntil(() => timers.armed().length > 0, 1_000);
    timers.fireArmed();
    const response = await pending;
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toMatchObject({ code: "upstream-error", reason: "the model API did not answer within 60 s" });
    expect(side.log.ofKind("proxy.decision")).toHaveLength(1);
  });
});

import { describe, expect, it } from "vitest";
import { createEventLog, refuse } from "../log";
import { type Policy, Policy as PolicySchema } from "../policy";
import { createProxy, type OwnHandler, type ProxyOptions } from "./index";
import { memoryConnection, parseResponse, recordedFetch } from "./testing/memory";

// The proxy is the only network client: a request the page makes
// on the guest's behalf from an own endpoint (the model endpoint) takes the by-value
// path of POST /v0/fetch and is still exactly one decision event, about the upstream URL.

const policy: Policy = PolicySchema.parse({
  version: 1,
  hosts: [{ host: "api.example.com", endpoints: [{ methods: ["POST"], paths: ["/v1/"] }] }],
});
const OWN = "10.0.2.2:3128";

function setup(handler: OwnHandler, overrides: Partial<ProxyOptions> = {}) {
  const log = createEventLog({ clock: () => 1000 });
  const fetch = recordedFetch(() => new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } }));
  const proxy = createProxy({
    policy: () => policy,
    fetch,
    clock: () => 1000,
    log,
    ownHost: OWN,
    handlers: { "POST /v0/ask": handler },
    ...overrides,
  });
  return { proxy, fetch, decisions: () => log.ofKind("proxy.decision") };
}

async function ask(proxy: ReturnType<typeof createProxy>, body = "hello"): Promise<ReturnType<typeof parseResponse>> {
  const client = memoryConnection();
  const done = proxy.handle(client.server);
  await client.send(`POST /v0/ask HTTP/1.1\r\nHost: ${OWN}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  const text = await client.readToEnd();
  await done;
  return parseResponse(text);
}

/** A handler that forwards its body upstream by value, then answers or refuses as the outcome says. */
const forwarding =
  (url: string, headers: [string, string][] = []): OwnHandler =>
  async (request) => {
    if (!request.fetchByValue) throw new Error("no by-value fetch offered");
    const outcome = await request.fetchByValue({ method: "POST", url, headers, body: request.body });
    if (outcome.kind === "refused") return { verdict: outcome.verdict, target: url, decision: { mode: "fetch" } };
    return {
      verdict: outcome.verdict,
      target: url,
      contentType: "text/plain",
      body: `upstream said ${outcome.answer.body}`,
      decision: { mode: "fetch", upstream: outcome.upstream },
    };
  };

describe("own handlers fetch upstream by value, under the policy, with one decision event", () => {
  it("fetches an allowed URL with the handler's headers and records one fetch-mode decision about it", async () => {
    const { proxy, fetch, decisions } = setup(forwarding("https://api.example.com/v1/messages", [["x-api-key", "k-secret-1"]]));
    const response = await ask(proxy);
    expect(response).toMatchObject({ status: 200, body: 'upstream said {"ok":true}' });
    expect(fetch.calls).toMatchObject([{ url: "https://api.example.com/v1/messages", body: "hello", init: { redirect: "manual" } }]);
    expect(fetch.calls[0]?.init.headers).toContainEqual(["x-api-key", "k-secret-1"]);
    expect(decisions()).toMatchObject([
      { mode: "fetch", method: "POST", target: "https://api.example.com/v1/messages", status: 200, code: "served", allowed: true },
    ]);
    expect(JSON.stringify(decisions())).not.toContain("k-secret-1");
  });

  it.each([
    ["a host not on the allowlist", "https://api.other.example/v1/messages", "host-not-allowed"],
    ["an endpoint not on the host's rules", "https://api.example.com/v2/messages", "endpoint-not-allowed"],
  ])("refuses %s without fetching: 403, X-Verdict, one decision with the URL as target", async (_name, url, code) => {
    const { proxy, fetch, decisions } = setup(forwarding(url));
    const response = await ask(proxy);
    expect(response.status).toBe(403);
    expect(response.headers["x-verdict"]).toBe(code);
    expect(fetch.calls).toHaveLength(0);
    expect(decisions()).toMatchObject([{ mode: "fetch", target: url, code, allowed: false }]);
  });

  it("answers a handler's refusal with the status it names (502 for an unusable upstream answer)", async () => {
    const { proxy, decisions } = setup(async () => ({
      verdict: refuse("unparsable", "the upstream answer is not what was asked for", "proxy"),
      target: "https://api.example.com/v1/messages",
      decision: { mode: "fetch", status: 502 },
    }));
    const response = await ask(proxy);
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toMatchObject({ verdict: "refused", code: "unparsable" });
    expect(decisions()).toMatchObject([{ mode: "fetch", status: 502, code: "unparsable" }]);
  });

  it("keeps a handler without a decision description as before: mode own, target the path", async () => {
    const { proxy, decisions } = setup(async () => ({ verdict: { allowed: true, code: "served", reason: "ok", by: "proxy" }, body: "{}" }));
    expect((await ask(proxy)).status).toBe(200);
    expect(decisions()).toMatchObject([{ mode: "own", target: "/v0/ask" }]);
  });
});

describe("a by-value request that carries a secret can refuse the CORS relay", () => {
  const unreadable = () => Promise.reject(new TypeError("Failed to fetch"));
  it.each([
    ["goes through the relay when allowed (default)", undefined, 2, "served"],
    ["never reaches the relay with corsProxy: false (upstream-unreadable)", false, 1, "upstream-unreadable"],
  ])("%s", async (_name, relay, fetches, code) => {
    let calls = 0;
    const handler: OwnHandler = async (request) => {
      const outcome = await request.fetchByValue!({
        method: "POST",
        url: "https://api.example.com/v1/messages",
        headers: [],
        body: null,
        ...(relay === undefined ? {} : { corsProxy: relay }),
      });
      return { verdict: outcome.verdict, target: "https://api.example.com/v1/messages", decision: { mode: "fetch" } };
    };
    const { proxy, decisions } = setup(handler, {
      corsProxy: "https://relay.example/?u={url}",
      fetch: (url) => {
        calls++;
        return url.startsWith("https://relay.example/") ? Promise.resolve(new Response("ok")) : unreadable();
      },
    });
    await ask(proxy);
    expect(calls).toBe(fetches);
    expect(decisions()).toMatchObject([{ code }]);
  });
});

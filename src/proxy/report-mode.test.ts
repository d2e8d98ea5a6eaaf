import { describe, expect, it } from "vitest";
import { createEventLog, parseJsonLines, toJsonLines } from "../log";
import { type Policy, Policy as PolicySchema } from "../policy";
import { createProxy } from "./index";
import { memoryConnection, opaqueRedirect, parseResponse, recordedFetch } from "./testing/memory";

// A policy in report mode serves what its allowlist would refuse and logs wouldRefuse; the
// proxy's own guarantees (Host checks, redirects to other hosts, IP literals) stay enforced.

const report: Policy = PolicySchema.parse({
  version: 1,
  mode: "report",
  hosts: [{ host: "api.github.com", endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] }],
});

function setup(answer?: Parameters<typeof recordedFetch>[0]) {
  let now = 1000;
  const log = createEventLog({ clock: () => now });
  const fetch = recordedFetch(answer ?? (() => new Response("hello", { status: 200, headers: { "content-length": "5" } })));
  const proxy = createProxy({ policy: () => report, fetch, clock: () => now++, log, ownHost: "10.0.2.2:3128" });
  return { proxy, log, fetch, decisions: () => log.ofKind("proxy.decision") };
}

async function roundTrip(proxy: ReturnType<typeof createProxy>, request: string): Promise<string> {
  const client = memoryConnection();
  const done = proxy.handle(client.server);
  await client.send(request);
  void client.end();
  const text = await client.readToEnd();
  await done;
  return text;
}

const get = (url: string, host = new URL(url).host) => `GET ${url} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

describe("report mode through the proxy", () => {
  it.each([
    ["a host not on the allowlist", "https://pastebin.com/raw/abc", "host-not-allowed"],
    ["an endpoint not on the host's rules", "https://api.github.com/user/emails", "endpoint-not-allowed"],
  ])("serves %s and logs the decision with wouldRefuse and its reason", async (_name, url, code) => {
    const { proxy, fetch, decisions, log } = setup();
    const response = parseResponse(await roundTrip(proxy, get(url)));
    expect(response).toMatchObject({ status: 200, body: "hello" });
    expect(fetch.calls.map((c) => c.url)).toEqual([url]);
    expect(decisions()).toMatchObject([{ allowed: true, code: "served", wouldRefuse: code, wouldRefuseReason: expect.any(String) }]);
    // The mark survives the /v0/log line format.
    const back = parseJsonLines(toJsonLines(log.events()));
    expect(back.errors).toEqual([]);
    expect(back.events.find((e) => e.kind === "proxy.decision")).toMatchObject({ wouldRefuse: code });
  });

  it("serves POST /v0/fetch (by value) for a host not on the allowlist and logs wouldRefuse", async () => {
    const { proxy, decisions } = setup();
    const body = JSON.stringify({ method: "GET", url: "https://pastebin.com/raw/abc", headers: {}, body: null });
    const request = `POST /v0/fetch HTTP/1.1\r\nHost: 10.0.2.2:3128\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const response = parseResponse(await roundTrip(proxy, request));
    expect(JSON.parse(response.body)).toMatchObject({ status: 200, body: "hello" });
    expect(decisions()).toMatchObject([{ mode: "fetch", allowed: true, code: "served", wouldRefuse: "host-not-allowed" }]);
  });

  it("still refuses an IP literal", async () => {
    const { proxy, fetch, decisions } = setup();
    const response = parseResponse(await roundTrip(proxy, get("https://93.184.216.34/")));
    expect(response.status).toBe(403);
    expect(fetch.calls).toHaveLength(0);
    expect(decisions()).toMatchObject([{ allowed: false, code: "ip-literal" }]);
  });

  it.each([
    ["absolute-form", get("http://localhost:8080/secret")],
    ["CONNECT", "CONNECT a.localhost:443 HTTP/1.1\r\nHost: a.localhost:443\r\n\r\n"],
    ["a name that spells 127.0.0.1", get("https://127-0-0-1.nip.io/")],
    [
      "POST /v0/fetch (by value)",
      (() => {
        const body = JSON.stringify({ method: "GET", url: "https://localhost./secret", headers: {}, body: null });
        return `POST /v0/fetch HTTP/1.1\r\nHost: 10.0.2.2:3128\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      })(),
    ],
  ])("still refuses a private destination private-address, %s, never fetching it", async (_name, request) => {
    const { proxy, fetch, decisions } = setup();
    await roundTrip(proxy, request);
    expect(fetch.calls).toHaveLength(0);
    expect(decisions()).toMatchObject([{ allowed: false, code: "private-address" }]);
    expect(decisions()[0]?.wouldRefuse).toBeUndefined();
  });

  it("still refuses a Host header that differs from the target", async () => {
    const { proxy, fetch, decisions } = setup();
    const response = parseResponse(await roundTrip(proxy, get("https://pastebin.com/x", "evil.example")));
    expect(response.status).toBe(421);
    expect(fetch.calls).toHaveLength(0);
    expect(decisions()).toMatchObject([{ allowed: false, code: "host-header-mismatch" }]);
  });

  it("still refuses a redirect to another host, for a host it reports", async () => {
    const { proxy, decisions } = setup(() => new Response(null, { status: 302, headers: { location: "https://evil.example/" } }));
    const response = parseResponse(await roundTrip(proxy, get("https://pastebin.com/x")));
    expect(response.status).toBe(403);
    expect(decisions()).toMatchObject([{ allowed: false, code: "redirect-other-host" }]);
  });

  it("still refuses an opaque redirect", async () => {
    const { proxy, decisions } = setup(() => opaqueRedirect());
    await roundTrip(proxy, get("https://pastebin.com/x"));
    expect(decisions()).toMatchObject([{ allowed: false, code: "redirect-other-host" }]);
  });
});

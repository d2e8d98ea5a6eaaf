import { describe, expect, it } from "vitest";
import { createEventLog, type EventOf, parseJsonLines } from "../log";
import { type Policy, Policy as PolicySchema, policyHash } from "../policy";
import { createProxy, type ProxyOptions } from "./index";
import { memoryConnection, opaqueRedirect, parseResponse, recordedFetch } from "./testing/memory";

// The proxy is the only network client (docs/decisions/0005-the-page-is-the-only-network-client.md): every request gets a
// verdict, a log entry, and allowed ones are fetched with redirect: "manual".

const policy: Policy = PolicySchema.parse({
  version: 1,
  hosts: [
    { host: "api.github.com", endpoints: [{ methods: ["GET", "HEAD", "POST"], paths: ["/repos/", "/zen"] }] },
    { host: "raw.githubusercontent.com" },
  ],
});

const OWN = "10.0.2.2:3128";

function setup(overrides: Partial<ProxyOptions> = {}, answer?: Parameters<typeof recordedFetch>[0]) {
  let now = 1000;
  const log = createEventLog({ clock: () => now });
  const fetch = recordedFetch(
    answer ?? (() => new Response("hello", { status: 200, headers: { "content-type": "text/plain", "content-length": "5" } })),
  );
  const proxy = createProxy({ policy: () => policy, fetch, clock: () => now++, log, ownHost: OWN, ...overrides });
  const decisions = () => log.ofKind("proxy.decision");
  return { proxy, log, fetch, decisions };
}

async function roundTrip(proxy: ReturnType<typeof createProxy>, request: string | Uint8Array): Promise<string> {
  const client = memoryConnection();
  const done = proxy.handle(client.server);
  await client.send(request);
  void client.end();
  const text = await client.readToEnd();
  await done;
  return text;
}

const get = (url: string, host = new URL(url).host, extra = "") => `GET ${url} HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`;

describe("absolute-form requests get a verdict, then fetch (the verdict table)", () => {
  it("serves an allowlisted request, streams the body, and says X-Verdict: served", async () => {
    const { proxy, fetch, decisions } = setup();
    const response = parseResponse(await roundTrip(proxy, get("https://api.github.com/zen")));
    expect(response).toMatchObject({ status: 200, body: "hello" });
    expect(response.headers["x-verdict"]).toBe("served");
    expect(response.headers["content-length"]).toBe("5");
    expect(fetch.calls.map((c) => [c.url, c.init.redirect])).toEqual([["https://api.github.com/zen", "manual"]]);
    expect(decisions()).toMatchObject([
      { mode: "absolute", method: "GET", target: "https://api.github.com/zen", status: 200, bytes: 5, code: "served", allowed: true },
    ]);
  });

  it.each([
    ["a host not on the allowlist", "https://pastebin.com/raw/abc", "host-not-allowed"],
    ["an endpoint not on the host's rules", "https://api.github.com/user/emails", "endpoint-not-allowed"],
    ["an IP literal", "https://93.184.216.34/", "ip-literal"],
    ["an IP literal in decimal", "https://2130706433/", "ip-literal"],
  ])("refuses %s with 403, X-Verdict and a JSON body, without fetching", async (_name, url, code) => {
    const { proxy, fetch, decisions } = setup();
    const response = parseResponse(await roundTrip(proxy, get(url)));
    expect(response.status).toBe(403);
    expect(response.headers["x-verdict"]).toBe(code);
    expect(JSON.parse(response.body)).toMatchObject({ verdict: "refused", code });
    expect(fetch.calls).toHaveLength(0);
    expect(decisions()).toMatchObject([{ code, allowed: false, status: 403 }]);
  });

  it("refuses an opaque redirect (the browser hides its target) as redirect-other-host", async () => {
    const { proxy } = setup({}, () => opaqueRedirect());
    const response = parseResponse(await roundTrip(proxy, get("https://api.github.com/repos/a/b")));
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ code: "redirect-other-host", reason: expect.stringContaining("opaque redirect") });
  });

  it("refuses a visible redirect to another host (the 302 to evil.example row)", async () => {
    const { proxy } = setup({}, () => new Response(null, { status: 302, headers: { location: "https://evil.example/" } }));
    const response = parseResponse(await roundTrip(proxy, get("https://api.github.com/repos/a/b")));
    expect(JSON.parse(response.body)).toMatchObject({ code: "redirect-other-host", reason: expect.stringContaining("evil.example") });
  });

  it("passes a visible same-host redirect to the client without following it", async () => {
    const { proxy, fetch } = setup({}, () => new Response(null, { status: 301, headers: { location: "/repos/new/name" } }));
    const response = parseResponse(await roundTrip(proxy, get("https://api.github.com/repos/old/name")));
    expect(response.status).toBe(301);
    expect(response.headers.location).toBe("/repos/new/name");
    expect(fetch.calls).toHaveLength(1);
  });

  it("answers 502 upstream-unreadable naming CORS when fetch rejects with a TypeError", async () => {
    const { proxy, decisions } = setup({}, () => {
      throw new TypeError("Failed to fetch");
    });
    const response = parseResponse(await roundTrip(proxy, get("https://raw.githubusercontent.com/a/b/c")));
    expect(response.status).toBe(502);
    expect(response.headers["x-verdict"]).toBe("upstream-unreadable");
    expect(JSON.parse(response.body).reason).toContain("CORS");
    expect(decisions()).toHaveLength(1);
  });

  it("reports a host guard's own refusal (FetchRefused) as that verdict, not as a network failure", async () => {
    const { proxy, decisions } = setup({}, () => {
      throw Object.assign(new Error("refused"), {
        name: "FetchRefused",
        verdict: { allowed: false, code: "private-address", reason: "api.github.com resolved to 127.0.0.1", by: "proxy" },
      });
    });
    const response = parseResponse(await roundTrip(proxy, get("https://api.github.com/zen")));
    expect(response.status).toBe(403);
    expect(response.headers["x-verdict"]).toBe("private-address");
    expect(decisions()).toMatchObject([{ code: "private-address" }]);
  });

  it("retries through the configured CORS relay and says so", async () => {
    const { proxy, fetch, decisions } = setup({ corsProxy: "https://relay.example/?url={url}" }, (url) => {
      if (url.startsWith("https://relay.example/")) return new Response("via relay", { headers: { "content-length": "9" } });
      throw new TypeError("Failed to fetch");
    });
    const response = parseResponse(await roundTrip(proxy, get("https://raw.githubusercontent.com/a/b/c")));
    expect(response.body).toBe("via relay");
    expect(fetch.calls[1]?.url).toBe(`https://relay.example/?url=${encodeURIComponent("https://raw.githubusercontent.com/a/b/c")}`);
    expect(decisions()[0]?.reason).toContain("CORS relay");
  });

  it("upgrades http:// to https:// by default, and the event shows both", async () => {
    const { proxy, fetch, decisions } = setup();
    const response = parseResponse(await roundTrip(proxy, get("http://api.github.com/zen")));
    expect(response.status).toBe(200);
    expect(fetch.calls[0]?.url).toBe("https://api.github.com/zen");
    expect(decisions()[0]).toMatchObject({
      target: "http://api.github.com/zen",
      upstream: "https://api.github.com/zen",
      reason: expect.stringContaining("upgraded"),
    });
  });

  it("refuses a Host header that differs from the absolute target (421 host-header-mismatch)", async () => {
    const { proxy, fetch } = setup();
    const response = parseResponse(await roundTrip(proxy, get("https://api.github.com/zen", "evil.example")));
    expect(response.status).toBe(421);
    expect(response.headers["x-verdict"]).toBe("host-header-mismatch");
    expect(fetch.calls).toHaveLength(0);
  });

  it("refuses private-address when the host's name check says so, and pins the checked address", async () => {
    const refused = setup({
      resolveHost: async () => ({ verdict: { allowed: false, code: "private-address", reason: "10.0.0.1 is private", by: "proxy" } }),
    });
    expect(parseResponse(await roundTrip(refused.proxy, get("https://api.github.com/zen"))).headers["x-verdict"]).toBe("private-address");
    const pinned = setup({
      resolveHost: async () => ({ verdict: { allowed: true, code: "served", reason: "public", by: "proxy" }, address: "140.82.112.6" }),
    });
    await roundTrip(pinned.proxy, get("https://api.github.com/zen"));
    expect(pinned.fetch.calls[0]?.init.address).toBe("140.82.112.6");
  });
});

describe("framing: the proxy frames what it relays", () => {
  it("strips Content-Encoding (fetch already decoded) and re-frames as chunked", async () => {
    const { proxy } = setup({}, () => new Response("decoded body", { headers: { "content-encoding": "gzip", "content-length": "999" } }));
    const raw = await roundTrip(proxy, get("https://api.github.com/zen"));
    const response = parseResponse(raw);
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.headers["transfer-encoding"]).toBe("chunked");
    expect(raw.endsWith("\r\n\r\nc\r\ndecoded body\r\n0\r\n\r\n")).toBe(true);
    expect(response.body).toBe("decoded body");
  });

  it("answers HEAD without a body", async () => {
    const { proxy } = setup();
    const raw = await roundTrip(proxy, "HEAD https://api.github.com/zen HTTP/1.1\r\nHost: api.github.com\r\n\r\n");
    expect(parseResponse(raw)).toMatchObject({ status: 200, body: "" });
  });
});

describe("connections: keep-alive, request bodies, 100-continue", () => {
  it("serves two requests on one keep-alive connection, one event each", async () => {
    const { proxy, fetch, decisions } = setup();
    const raw = await roundTrip(proxy, get("https://api.github.com/zen") + get("https://pastebin.com/x"));
    expect(raw.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 403"]);
    expect(fetch.calls).toHaveLength(1);
    expect(decisions().map((d) => d.code)).toEqual(["served", "host-not-allowed"]);
  });

  it("reads a chunked request body and forwards it whole", async () => {
    const { proxy, fetch } = setup();
    const request =
      "POST https://api.github.com/repos/a/b HTTP/1.1\r\nHost: api.github.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n";
    await roundTrip(proxy, request);
    expect(fetch.calls[0]?.body).toBe("hello world");
  });

  it("sends 100 Continue for an allowed request before reading its body", async () => {
    const { proxy, fetch } = setup();
    const client = memoryConnection();
    const done = proxy.handle(client.server);
    await client.send(
      "POST https://api.github.com/repos/a/b HTTP/1.1\r\nHost: api.github.com\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n",
    );
    expect(await client.waitFor("\r\n\r\n")).toBe("HTTP/1.1 100 Continue\r\n\r\n");
    await client.send("data");
    void client.end();
    const raw = await client.readToEnd();
    await done;
    expect(raw).toContain("HTTP/1.1 200");
    expect(fetch.calls[0]?.body).toBe("data");
  });

  it("refuses a 100-continue request without asking for its body, and closes", async () => {
    const { proxy } = setup();
    const client = memoryConnection();
    const done = proxy.handle(client.server);
    await client.send("POST https://pastebin.com/x HTTP/1.1\r\nHost: pastebin.com\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    const raw = await client.readToEnd();
    await done;
    expect(raw).not.toContain("100 Continue");
    expect(parseResponse(raw).headers).toMatchObject({ "x-verdict": "host-not-allowed", connection: "close" });
  });

  it("a bad request on one connection does not disturb another", async () => {
    const { proxy } = setup();
    const [bad, good] = await Promise.all([
      roundTrip(proxy, "GET https://api.github.com/zen HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
      roundTrip(proxy, get("https://api.github.com/zen")),
    ]);
    expect(parseResponse(bad).status).toBe(400);
    expect(parseResponse(good).status).toBe(200);
  });
});

describe("CONNECT: the verdict first, then a tunnel for the TLS terminator", () => {
  it.each([
    ["a host not on the allowlist", "pastebin.com:443", 403, "host-not-allowed"],
    ["an IP literal", "93.184.216.34:443", 403, "ip-literal"],
    ["a port other than 443", "api.github.com:22", 403, "port-not-allowed"],
    ["an allowed host without a TLS terminator", "api.github.com:443", 501, "tls-not-ready"],
  ])("answers %s with %i %s", async (_name, authority, status, code) => {
    const { proxy } = setup();
    const response = parseResponse(await roundTrip(proxy, `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    expect(response.status).toBe(status);
    expect(response.headers["x-verdict"]).toBe(code);
  });

  it("opens the tunnel with 200 and serves the requests inside it with the Host check", async () => {
    // A stand-in terminator that "decrypts" by passing bytes through, so serveTunnel is exercised.
    const opened: { host: string; port: number }[] = [];
    const { proxy, fetch, decisions } = setup({
      tunnel: {
        async open(raw, connect) {
          opened.push({ host: connect.host, port: connect.port });
          await connect.serveTunnel(raw, "tls-1");
        },
      },
    });
    const raw = await roundTrip(
      proxy,
      "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n" +
        "GET /zen HTTP/1.1\r\nHost: api.github.com\r\n\r\n" +
        "GET /zen HTTP/1.1\r\nHost: evil.example\r\n\r\n",
    );
    expect(opened).toEqual([{ host: "api.github.com", port: 443 }]);
    expect(raw.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 421"]);
    expect(fetch.calls.map((c) => c.url)).toEqual(["https://api.github.com/zen"]);
    expect(decisions().map((d) => [d.mode, d.code, d.tlsSession])).toEqual([
      ["connect", "served", undefined],
      ["tunnel", "served", "tls-1"],
      ["tunnel", "host-header-mismatch", "tls-1"],
    ]);
  });
});

describe("the proxy's own endpoints", () => {
  const post = (path: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: ${OWN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  it("POST /v0/fetch answers {status, headers, body} for an allowed request", async () => {
    const { proxy, fetch, decisions } = setup();
    const response = parseResponse(
      await roundTrip(
        proxy,
        post(
          "/v0/fetch",
          JSON.stringify({ method: "GET", url: "https://api.github.com/zen", headers: { Accept: "text/plain" }, body: null }),
        ),
      ),
    );
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({
      status: 200,
      body: "hello",
      base64: false,
      headers: { "content-type": "text/plain" },
    });
    expect(fetch.calls[0]?.init.headers).toEqual([["Accept", "text/plain"]]);
    expect(decisions()).toMatchObject([{ mode: "fetch", target: "https://api.github.com/zen", code: "served" }]);
  });

  it("POST /v0/fetch refuses by value with 403 and the JSON refusal", async () => {
    const { proxy } = setup();
    const response = parseResponse(await roundTrip(proxy, post("/v0/fetch", JSON.stringify({ url: "https://pastebin.com/raw/x" }))));
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ verdict: "refused", code: "host-not-allowed" });
  });

  it("POST /v0/fetch carries binary bodies as base64 both ways", async () => {
    const { proxy, fetch } = setup({}, () => new Response(new Uint8Array([0xff, 0x00, 0xfe])));
    const response = parseResponse(
      await roundTrip(
        proxy,
        post("/v0/fetch", JSON.stringify({ method: "POST", url: "https://api.github.com/repos/a", body: "AAEC", base64: true })),
      ),
    );
    expect([...(fetch.calls[0]?.init.body ?? [])]).toEqual([0, 1, 2]);
    expect(JSON.parse(response.body)).toMatchObject({ body: "/wD+", base64: true });
  });

  it("POST /v0/fetch with a body that fails the schema is a bad request naming the field", async () => {
    const { proxy } = setup();
    const response = parseResponse(await roundTrip(proxy, post("/v0/fetch", JSON.stringify({ url: 5 }))));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).reason).toContain("url");
  });

  it("GET /v0/log serves the decisions so far as JSON lines", async () => {
    const { proxy } = setup();
    await roundTrip(proxy, get("https://pastebin.com/x"));
    const response = parseResponse(await roundTrip(proxy, `GET /v0/log HTTP/1.1\r\nHost: ${OWN}\r\n\r\n`));
    const parsed = parseJsonLines(response.body);
    expect(parsed.errors).toEqual([]);
    expect(parsed.events).toMatchObject([{ kind: "proxy.decision", code: "host-not-allowed" }]);
  });

  it("GET /v0/log streams a log larger than one chunk whole, and says how many events the ring dropped", async () => {
    const { proxy, log } = setup();
    for (let i = 0; i < 3000; i++) log.append({ kind: "note", level: "info", source: "test", message: `note ${i} ${"x".repeat(40)}` });
    const response = parseResponse(await roundTrip(proxy, `GET /v0/log HTTP/1.1\r\nHost: ${OWN}\r\n\r\n`));
    expect(response.headers["transfer-encoding"]).toBe("chunked");
    expect(response.headers["x-log-dropped"]).toBe(String(log.dropped));
    const parsed = parseJsonLines(response.body);
    expect(parsed.errors).toEqual([]);
    expect(parsed.events).toHaveLength(3000);
    expect(parsed.events.at(-1)).toMatchObject({ kind: "note", message: expect.stringContaining("note 2999") });
  });

  it("GET /v0/policy serves the policy and its sha256", async () => {
    const { proxy } = setup();
    const response = parseResponse(await roundTrip(proxy, `GET /v0/policy HTTP/1.1\r\nHost: ${OWN}\r\n\r\n`));
    expect(JSON.parse(response.body)).toEqual({ policy: JSON.parse(JSON.stringify(policy)), sha256: await policyHash(policy) });
  });

  it("sees a policy swapped live on the next request", async () => {
    let current = policy;
    const { proxy } = setup({ policy: () => current });
    expect(parseResponse(await roundTrip(proxy, get("https://pastebin.com/x"))).status).toBe(403);
    current = PolicySchema.parse({ version: 1, hosts: [{ host: "pastebin.com" }] });
    expect(parseResponse(await roundTrip(proxy, get("https://pastebin.com/x"))).status).toBe(200);
  });

  it("plugs a vault handler in by route, filed under the mode it declares; without one, the vault route is refused", async () => {
    const without = setup();
    expect(parseResponse(await roundTrip(without.proxy, post("/v0/vault/pull", "{}"))).headers["x-verdict"]).toBe("endpoint-not-allowed");
    const withVault = setup({
      handlers: {
        "POST /v0/vault/pull": {
          mode: "vault",
          json: true,
          handle: async (request) => ({
            verdict: { allowed: true, code: "served", reason: "pulled", by: "kms" },
            body: `{"got":${new TextDecoder().decode(request.body)}}`,
            target: "vault:v1",
          }),
        },
      },
    });
    const response = parseResponse(await roundTrip(withVault.proxy, post("/v0/vault/pull", '{"vault_id":"v1"}')));
    expect(JSON.parse(response.body)).toEqual({ got: { vault_id: "v1" } });
    expect(withVault.decisions()).toMatchObject([{ mode: "vault", target: "vault:v1", by: "kms" }]);
  });

  it("refuses an origin-form request for another Host (421)", async () => {
    const { proxy } = setup();
    expect(parseResponse(await roundTrip(proxy, "GET /zen HTTP/1.1\r\nHost: api.github.com\r\n\r\n")).status).toBe(421);
  });
});

describe("the canonical decision event (one event per request)", () => {
  it("records exactly one decision per request, whatever its fate", async () => {
    const { proxy, decisions } = setup();
    await roundTrip(
      proxy,
      get("https://api.github.com/zen") + get("https://pastebin.com/x") + `GET /v0/policy HTTP/1.1\r\nHost: ${OWN}\r\n\r\n`,
    );
    await roundTrip(proxy, "GET https://api.github.com/zen HTTP/1.1\r\nHost : x\r\n\r\n");
    await roundTrip(proxy, "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com\r\n\r\n");
    const events = decisions();
    expect(events.map((e) => e.code)).toEqual(["served", "host-not-allowed", "served", "bad-request", "tls-not-ready"]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("redacts Authorization, cookies and tokens in the event but forwards Authorization upstream", async () => {
    const { proxy, fetch, decisions } = setup();
    await roundTrip(
      proxy,
      get(
        "https://api.github.com/zen?access_token=s3cret&page=2",
        "api.github.com",
        "Authorization: Bearer ghp_secret\r\nCookie: session=abc\r\nX-GitHub-Token: t0k\r\n",
      ),
    );
    const event = decisions()[0] as EventOf<"proxy.decision">;
    expect(JSON.stringify(event)).not.toMatch(/ghp_secret|s3cret|session=abc|t0k/);
    expect(event.target).toBe("https://api.github.com/zen?access_token=[redacted]&page=2");
    expect(event.headers).toMatchObject({ authorization: "[redacted]", cookie: "[redacted]", "x-github-token": "[redacted]" });
    expect(fetch.calls[0]?.init.headers).toContainEqual(["Authorization", "Bearer ghp_secret"]);
    expect(fetch.calls[0]?.init.headers.map(([n]) => n.toLowerCase())).not.toContain("cookie");
  });
});

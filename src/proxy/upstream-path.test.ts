import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { type Policy, Policy as PolicySchema } from "../policy";
import { createProxy, type ProxyOptions, type UpstreamPath } from "./index";
import { memoryConnection, parseResponse, recordedFetch } from "./testing/memory";

// Which way a request left the page (browser fetch or a Wisp relay with the page as
// the TLS client) is in its one decision event; through a relay the redirect target is seen,
// and a certificate that does not verify is its own verdict.

const policy: Policy = PolicySchema.parse({ version: 1, hosts: [{ host: "upstream.test" }] });

function setup(path: UpstreamPath | undefined, answer: Parameters<typeof recordedFetch>[0]) {
  let now = 1000;
  const log = createEventLog({ clock: () => now });
  const fetch = recordedFetch(answer);
  const options: ProxyOptions = {
    policy: () => policy,
    fetch,
    clock: () => now++,
    log,
    ownHost: "10.0.2.2:3128",
    ...(path ? { upstreamPath: () => path } : {}),
  };
  return { proxy: createProxy(options), fetch, decisions: () => log.ofKind("proxy.decision") };
}

async function get(proxy: ReturnType<typeof createProxy>, url: string) {
  const client = memoryConnection();
  const done = proxy.handle(client.server);
  await client.send(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`);
  void client.end();
  const text = await client.readToEnd();
  await done;
  return parseResponse(text);
}

const certRefused = () => {
  throw Object.assign(new Error("invalid peer certificate"), {
    name: "FetchRefused",
    verdict: {
      allowed: false,
      code: "upstream-cert-invalid",
      reason: 'the certificate of upstream.test did not verify: certificate not valid for name "upstream.test"',
      by: "proxy",
    },
  });
};

describe("the upstream path in the decision event", () => {
  it("records browser-fetch when no relay is set, and wisp-relay when one is", async () => {
    for (const path of ["browser-fetch", "wisp-relay"] as const) {
      const { proxy, decisions } = setup(path, () => new Response("ok", { headers: { "content-length": "2" } }));
      const response = await get(proxy, "https://upstream.test/ok");
      expect(response).toMatchObject({ status: 200, body: "ok" });
      expect(decisions()).toMatchObject([{ code: "served", upstreamPath: path }]);
    }
  });

  it("says through the Wisp relay the page verified the certificate", async () => {
    const { proxy, decisions } = setup("wisp-relay", () => new Response("ok"));
    await get(proxy, "https://upstream.test/ok");
    expect(decisions()[0]?.reason).toContain("through the Wisp relay (TLS by the page, certificate verified)");
  });
});

describe("redirects seen through the relay", () => {
  it("passes a same-host 302 to the client, not followed", async () => {
    const { proxy, fetch, decisions } = setup("wisp-relay", () => new Response(null, { status: 302, headers: { location: "/ok" } }));
    const response = await get(proxy, "https://upstream.test/moved");
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe("/ok");
    expect(fetch.calls).toHaveLength(1);
    expect(decisions()).toMatchObject([{ allowed: true, status: 302, upstreamPath: "wisp-relay" }]);
  });

  it("refuses a 302 to another host redirect-other-host, naming that host", async () => {
    const { proxy, decisions } = setup(
      "wisp-relay",
      () => new Response(null, { status: 302, headers: { location: "https://elsewhere.test/x" } }),
    );
    const response = await get(proxy, "https://upstream.test/away");
    expect(response.status).toBe(403);
    expect(response.headers["x-verdict"]).toBe("redirect-other-host");
    expect(JSON.parse(response.body).reason).toContain("elsewhere.test");
    expect(decisions()).toMatchObject([{ code: "redirect-other-host", upstreamPath: "wisp-relay" }]);
  });
});

describe("upstream-cert-invalid", () => {
  it("answers 502 with the relay fetcher's verdict, the reason naming the host", async () => {
    const { proxy, decisions } = setup("wisp-relay", certRefused);
    const response = await get(proxy, "https://upstream.test/ok");
    expect(response.status).toBe(502);
    expect(response.headers["x-verdict"]).toBe("upstream-cert-invalid");
    expect(JSON.parse(response.body).reason).toContain("upstream.test");
    expect(decisions()).toMatchObject([{ code: "upstream-cert-invalid", allowed: false, upstreamPath: "wisp-relay" }]);
  });
});

describe("upstream-unreadable says how to start a relay", () => {
  it("names npx tab relay and ?relay= when the browser could not read the host", async () => {
    const { proxy, decisions } = setup(undefined, () => {
      throw new TypeError("Failed to fetch");
    });
    const response = await get(proxy, "https://upstream.test/ok");
    expect(response.headers["x-verdict"]).toBe("upstream-unreadable");
    const reason = JSON.parse(response.body).reason as string;
    expect(reason).toContain("npx tab relay");
    expect(reason).toContain("?relay=");
    expect(decisions()).toMatchObject([{ upstreamPath: "browser-fetch" }]);
  });

  it("is upstream-error, not CORS, when the Wisp relay itself failed", async () => {
    const { proxy } = setup("wisp-relay", () => {
      throw new TypeError("the relay closed the stream");
    });
    const response = await get(proxy, "https://upstream.test/ok");
    expect(response.headers["x-verdict"]).toBe("upstream-error");
    expect(JSON.parse(response.body).reason).toContain("through the Wisp relay failed: the relay closed the stream");
  });

  it("gives no relay hint on the Node host's direct path", async () => {
    const { proxy } = setup("direct", () => {
      throw new TypeError("socket hang up");
    });
    const response = await get(proxy, "https://upstream.test/ok");
    expect(JSON.parse(response.body).reason).not.toContain("npx tab relay");
  });
});

import { describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import { createEventLog } from "../log";
import { fakeTimers } from "../platform/testing/fake-timers";
import { DEFAULT_POLICY } from "../policy";
import { createProxy, DEFAULT_HEAD_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, type ProxyOptions, type TunnelHook } from "./index";
import { memoryConnection, parseResponse, recordedFetch } from "./testing/memory";

// The proxy is the only network client, and docs/architecture.md's
// known debt "Proxy idle timeout": a guest connection that sends half a request head, or
// nothing, or goes quiet, must not hold the proxy's resources forever. Time is a fake the
// test moves: nothing here waits for real, and nothing asserts how long anything took.

const HEAD = DEFAULT_HEAD_TIMEOUT_MS;
const IDLE = DEFAULT_IDLE_TIMEOUT_MS;
const get = (url: string) => `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`;
const CONNECT = "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n";

function setup(overrides: Partial<ProxyOptions> = {}) {
  const timers = fakeTimers();
  const log = createEventLog({ clock: () => 0 });
  const fetch = recordedFetch(() => new Response("hello", { headers: { "content-length": "5" } }));
  const proxy = createProxy({ policy: () => DEFAULT_POLICY, fetch, clock: () => 0, log, ownHost: "10.0.2.2:3128", timers, ...overrides });
  const client = memoryConnection();
  const served = proxy.handle(client.server);
  // Read in the background, so the test can ask at any point whether the proxy has closed.
  let closed = false;
  const everything = client.readToEnd().then((text) => {
    closed = true;
    return text;
  });
  return {
    timers,
    log,
    fetch,
    client,
    isClosed: () => closed,
    text: () => new TextDecoder("latin1").decode(client.received()),
    /** Lets the proxy work (no time passes) until it has sent `marker`. */
    sees: async (marker: string) => {
      for (let turn = 0; turn < 20 && !new TextDecoder("latin1").decode(client.received()).includes(marker); turn++) await timers.settle();
      expect(new TextDecoder("latin1").decode(client.received())).toContain(marker);
    },
    /** Waits until the proxy has closed the connection; returns what it sent. */
    closing: async () => {
      const text = await everything;
      await served;
      return text;
    },
    decisions: () => log.ofKind("proxy.decision"),
    notes: () => log.ofKind("note"),
  };
}

/** A stand-in TLS terminator: it reads the raw tunnel until it ends, and can write to the guest. */
function quietTunnel(): { hook: TunnelHook; push(text: string): Promise<void> } {
  let writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  return {
    hook: {
      async open(raw) {
        writer = raw.writable.getWriter();
        const reader = raw.readable.getReader();
        while (!(await reader.read()).done) {}
        await writer.close().catch(() => undefined);
      },
    },
    push: async (text) => writer?.write(utf8(text)),
  };
}

async function openTunnel(c: ReturnType<typeof setup>): Promise<void> {
  await c.client.send(CONNECT);
  await c.sees("200 Connection Established\r\n\r\n");
}

describe("the head timeout: a request head must be complete in time, or 408 (known debt)", () => {
  it.each([
    ["half a request head", "GET https://api.github.com/zen HTTP/1.1\r\nHo"],
    ["nothing at all", ""],
  ])("answers a connection that sent %s 408 with X-Verdict, logs the refusal and closes", async (_name, sent) => {
    const c = setup();
    if (sent) await c.client.send(sent);
    await c.timers.advance(HEAD - 1);
    expect(c.text()).toBe("");
    await c.timers.advance(1);
    const response = parseResponse(await c.closing());
    expect(response.status).toBe(408);
    expect(response.headers).toMatchObject({ "x-verdict": "request-timeout", connection: "close" });
    expect(JSON.parse(response.body)).toMatchObject({
      verdict: "refused",
      code: "request-timeout",
      reason: expect.stringContaining("timeout"),
    });
    expect(c.decisions()).toMatchObject([
      { status: 408, allowed: false, code: "request-timeout", by: "proxy", reason: expect.stringContaining("request timeout") },
    ]);
    expect(c.fetch.calls).toHaveLength(0);
    expect(c.timers.armed()).toEqual([]);
  });

  it("serves a request whose head completes before the timer, and cancels the head timer", async () => {
    const c = setup();
    await c.client.send("GET https://api.github.com/zen HTTP/1.1\r\n");
    await c.timers.advance(HEAD - 1);
    await c.client.send("Host: api.github.com\r\n\r\n");
    await c.sees("hello");
    await c.timers.settle();
    expect(c.timers.armed()).toEqual([IDLE]); // only the idle clock of the open keep-alive connection
    await c.timers.advance(HEAD);
    expect(c.text()).not.toContain("408");
    expect(c.decisions()).toMatchObject([{ status: 200, code: "served" }]);
    expect(c.isClosed()).toBe(false);
  });

  it("on a keep-alive connection, starts the next head's clock at its first byte, not at the last answer", async () => {
    const c = setup();
    await c.client.send(get("https://api.github.com/zen"));
    await c.sees("hello");
    await c.timers.advance(HEAD * 2);
    expect(c.isClosed()).toBe(false);
    await c.client.send("GET https://api.github.com/zen HT");
    await c.timers.advance(HEAD);
    expect(parseResponse((await c.closing()).slice(c.text().lastIndexOf("HTTP/1.1 "))).status).toBe(408);
    expect(c.decisions().map((d) => d.status)).toEqual([200, 408]);
  });
});

describe("the idle timeout: a connection or tunnel with no traffic either way is closed (known debt)", () => {
  it("closes a keep-alive connection after the idle period and logs a note naming its last request", async () => {
    const c = setup();
    await c.client.send(get("https://api.github.com/zen"));
    await c.sees("hello");
    await c.timers.advance(IDLE - 1);
    expect(c.isClosed()).toBe(false);
    await c.timers.advance(1);
    await c.closing();
    expect(c.notes()).toMatchObject([
      { level: "info", source: "proxy", message: expect.stringMatching(/idle timeout.*\(last request r1\)/) },
    ]);
    expect(c.decisions()).toHaveLength(1); // no request, so no second decision
    expect(c.timers.armed()).toEqual([]);
  });

  it("closes an open CONNECT tunnel after the idle period, ending the terminator's raw stream", async () => {
    const tunnel = quietTunnel();
    const c = setup({ tunnel: tunnel.hook });
    await openTunnel(c);
    await c.timers.advance(IDLE - 1);
    expect(c.isClosed()).toBe(false);
    await c.timers.advance(1);
    await c.closing();
    expect(c.notes()).toMatchObject([
      { source: "proxy", message: expect.stringContaining("the CONNECT tunnel to api.github.com:443 (r1)") },
    ]);
    expect(c.timers.armed()).toEqual([]);
  });

  it.each([
    ["bytes from the guest", (c: ReturnType<typeof setup>) => c.client.send("\x16\x03\x01")],
    [
      "bytes to the guest",
      async (c: ReturnType<typeof setup>, push: (text: string) => Promise<void>) => {
        await push("pong");
        await c.sees("pong");
      },
    ],
  ])("restarts the idle period on %s in the tunnel", async (_name, traffic) => {
    const tunnel = quietTunnel();
    const c = setup({ tunnel: tunnel.hook });
    await openTunnel(c);
    await c.timers.advance(IDLE - 1000);
    await traffic(c, tunnel.push);
    await c.timers.advance(IDLE - 1000);
    expect(c.isClosed()).toBe(false);
    expect(c.notes()).toEqual([]);
    await c.timers.advance(1000);
    await c.closing();
    expect(c.notes()).toHaveLength(1);
  });
});

describe("timeouts are the host's choice", () => {
  it("uses the configured head timeout", async () => {
    const c = setup({ headTimeoutMs: 1000 });
    await c.client.send("GET / HTTP/1.1\r\n");
    await c.timers.advance(1000);
    expect(parseResponse(await c.closing()).status).toBe(408);
    expect(c.decisions()[0]?.reason).toContain("within 1 s");
  });

  it.each([
    ["a zero head timeout", { headTimeoutMs: 0 }],
    ["a negative idle timeout", { idleTimeoutMs: -5 }],
    ["an idle timeout that is not a number", { idleTimeoutMs: Number.NaN }],
  ])("refuses %s when the proxy is created", (_name, options) => {
    expect(() => setup(options)).toThrow(RangeError);
  });
});

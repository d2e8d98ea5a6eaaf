import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type HttpsUpstream, startHttpsUpstream } from "../../../e2e/support/https-upstream";
import { createTestCa, type TestCa } from "../../../e2e/support/test-ca";
import { type RunningRelay, runRelay } from "../../cli/relay/testing/harness";
import { guardRefusal } from "../../log";
import type { UpstreamInit } from "../../proxy";
import { createEpoxyEngine, createWispRelayFetch, relayFailure } from "./wisp-fetch";

// The page's relay fetcher with the real engine (epoxy-tls) through the real
// `npx tab relay` process to a local HTTPS upstream under a throwaway CA. Node has no
// WebSocket global before v22; epoxy opens its WebSocket with the `ws` package's here.

// The page fetches the wasm from the URL its bundle gives it; Node reads the package's file.
const wasmPath = join(import.meta.dirname, "..", "..", "..", "node_modules", "@mercuryworkshop", "epoxy-tls", "full", "epoxy.wasm");
const engine = createEpoxyEngine(() => readFile(wasmPath));

let ca: TestCa;
let upstream: HttpsUpstream;
let relay: RunningRelay;
let strict: RunningRelay;
const get: UpstreamInit = { method: "GET", headers: [["accept", "*/*"]], body: null, redirect: "manual" };

/** A browser's WebSocket sends its page's Origin; the relay admits only the playground's. */
class PageWebSocket extends WebSocket {
  constructor(address: string, protocols?: string | string[]) {
    super(address, protocols, { origin: "http://127.0.0.1:4173" });
  }
}

beforeAll(async () => {
  Reflect.set(globalThis, "WebSocket", PageWebSocket);
  ca = createTestCa();
  upstream = await startHttpsUpstream(
    ca,
    { "upstream.test": ["upstream.test"], "wrong.test": ["other.test"] },
    { host: "127.0.0.1", port: 0 },
  );
  const names = ["--resolve", "upstream.test=127.0.0.1", "--resolve", "wrong.test=127.0.0.1", "--allow-ports", String(upstream.port)];
  relay = await runRelay(["--allow-private-for-tests", "127.0.0.1", ...names]);
  strict = await runRelay(names);
}, 30_000);

afterAll(async () => {
  relay?.child.kill("SIGINT");
  strict?.child.kill("SIGINT");
  await upstream?.close();
});

const url = (host: string, path: string) => `https://${host}:${upstream.port}${path}`;

describe("the page's fetch through a Wisp relay (epoxy-tls)", () => {
  it("reads a host that sends no CORS headers, verifying its certificate, and drops the engine's own headers", async () => {
    const fetch = createWispRelayFetch(relay.url, [ca.certPem], engine);
    const response = await fetch(url("upstream.test", "/ok"), get);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(`ok from upstream.test:${upstream.port} over the relay\n`);
    expect([...response.headers.keys()].filter((name) => name.startsWith("x-epoxy"))).toEqual([]);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const record = await relay.record((r) => r.name === "upstream.test");
    expect(record).toMatchObject({ address: "127.0.0.1", port: upstream.port, refused: false });
  });

  it("opens one Wisp stream per request and closes it once the answer has been read", async () => {
    const fetch = createWispRelayFetch(relay.url, [ca.certPem], engine);
    const seen = relay.records().length;
    for (const path of ["/ok", "/moved", "/ok"]) await (await fetch(url("upstream.test", path), get)).arrayBuffer();
    // Each stream's line is printed when it closes, before Node's 5 s idle timeout would close it.
    await relay.record(() => relay.records().length >= seen + 3);
    expect(
      relay
        .records()
        .slice(seen)
        .map((r) => r.name),
    ).toEqual(["upstream.test", "upstream.test", "upstream.test"]);
  });

  it("returns a redirect as it is, never following it", async () => {
    const fetch = createWispRelayFetch(relay.url, [ca.certPem], engine);
    const before = upstream.requests.length;
    const response = await fetch(url("upstream.test", "/moved"), get);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/ok");
    expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(["/moved"]);
  });

  it("refuses a certificate for another name upstream-cert-invalid, naming the host", async () => {
    const fetch = createWispRelayFetch(relay.url, [ca.certPem], engine);
    const error = await fetch(url("wrong.test", "/ok"), get).then(
      () => null,
      (e: unknown) => e,
    );
    const verdict = guardRefusal(error);
    expect(verdict).toMatchObject({ code: "upstream-cert-invalid", allowed: false, by: "proxy" });
    expect(verdict?.reason).toContain("wrong.test");
    expect(verdict?.reason).toContain("not valid for name");
  });

  it("trusts only the bundled Mozilla roots without a test root: the test CA's certificate does not verify", async () => {
    const fetch = createWispRelayFetch(relay.url, [], engine);
    const error = await fetch(url("upstream.test", "/ok"), get).then(
      () => null,
      (e: unknown) => e,
    );
    expect(guardRefusal(error)).toMatchObject({ code: "upstream-cert-invalid" });
    expect(guardRefusal(error)?.reason).toContain("UnknownIssuer");
  });

  it("reports a stream the relay refused as relay-refused, naming the relay and its reason", async () => {
    const fetch = createWispRelayFetch(strict.url, [ca.certPem], engine);
    const error = await fetch(url("upstream.test", "/ok"), get).then(
      () => null,
      (e: unknown) => e,
    );
    const verdict = guardRefusal(error);
    expect(verdict).toMatchObject({ code: "relay-refused" });
    expect(verdict?.reason).toContain(`the relay ${strict.url} refused the stream to upstream.test:${upstream.port}: blocked`);
    expect(await strict.record((r) => r.name === "upstream.test")).toMatchObject({ refused: true, code: "private-address" });
  });

  it("reports a relay that refused the WebSocket (another origin) as the relay's WebSocket failing", async () => {
    Reflect.set(globalThis, "WebSocket", WebSocket); // no Origin: the relay answers 403
    try {
      const fetch = createWispRelayFetch(relay.url, [ca.certPem], engine);
      const error = await fetch(url("upstream.test", "/ok"), get).then(
        () => null,
        (e: unknown) => e,
      );
      expect(guardRefusal(error)).toBeNull();
      expect(String(error)).toContain("the relay's WebSocket failed");
      expect(await relay.record((r) => r.kind === "relay.refused")).toMatchObject({ status: 403, origin: null });
    } finally {
      Reflect.set(globalThis, "WebSocket", PageWebSocket);
    }
  });

  it("never shows the relay URL's token in a reason", () => {
    const error = relayFailure("https://h.test/", "wss://relay.example/?token=s3cret-s3cret-s3cret", new Error("ServerStreamThrottled"));
    expect(guardRefusal(error)?.reason).toContain("the relay wss://relay.example/?token=… refused the stream to h.test:443: throttled");
    expect(String(guardRefusal(error)?.reason)).not.toContain("s3cret");
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientOptions, WebSocket } from "ws";
import { type HttpsUpstream, startHttpsUpstream } from "../../../e2e/support/https-upstream";
import { type NginxFront, nginxBinary, startNginxFront } from "../../../e2e/support/nginx";
import { createTestCa, type TestCa } from "../../../e2e/support/test-ca";
import { createEpoxyEngine, createWispRelayFetch } from "../../page/relay";
import type { UpstreamInit } from "../../proxy";
import { type RunningRelay, runRelay } from "./testing/harness";

// The recipe for many users (docs/relay.md): nginx (Debian's package) terminating TLS on
// loopback in front of two `npx tab relay` instances, and the page's own relay fetch (epoxy-tls,
// as in the page) connecting through wss://. Each request opens its own WebSocket, so nginx's
// round robin sends one to each instance. The certificate is made at test time by the test CA;
// nginx runs on an unprivileged port from its own temporary prefix, and is stopped at the end.

const wasmPath = join(import.meta.dirname, "..", "..", "..", "node_modules", "@mercuryworkshop", "epoxy-tls", "full", "epoxy.wasm");
const PAGE_ORIGIN = "http://127.0.0.1:4173";

let ca: TestCa;
let upstream: HttpsUpstream;
const relays: RunningRelay[] = [];
let nginx: NginxFront | undefined;
let port: number;

// Skipped only where nginx is absent and this is not CI (npm test installs it as root with apt,
// scripts/ensure-tools.ts): CI must run it.
describe.skipIf(nginxBinary === undefined && !process.env.CI)("many users: nginx with TLS in front of two relay instances", () => {
  beforeAll(async () => {
    ca = createTestCa();
    upstream = await startHttpsUpstream(ca, { "upstream.test": ["upstream.test"] }, { host: "127.0.0.1", port: 0 });
    for (let i = 0; i < 2; i++)
      relays.push(
        await runRelay([
          "--allow-private-for-tests",
          "127.0.0.1",
          "--resolve",
          "upstream.test=127.0.0.1",
          "--allow-ports",
          String(upstream.port),
          "--trust-proxy",
          "127.0.0.1",
        ]),
      );
    const leaf = ca.issue(["relay.test"]);
    nginx = await startNginxFront({ serverName: "relay.test", ...leaf, relayPorts: relays.map((r) => Number(new URL(r.url).port)) });
    port = nginx.port;
    // The page's WebSocket: its Origin, and trust in the test CA for relay.test (a browser has both from the page and its roots).
    class PageWebSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        const tlsOptions: ClientOptions & { servername: string } = {
          origin: PAGE_ORIGIN,
          ca: ca.certPem,
          // Node checks the certificate against the servername: relay.test, as the browser would for wss://relay.test.
          servername: "relay.test",
        };
        super(address, protocols, tlsOptions);
      }
    }
    Reflect.set(globalThis, "WebSocket", PageWebSocket);
  }, 60_000);

  afterAll(async () => {
    await nginx?.close();
    for (const relay of relays) relay.child.kill("SIGINT");
    await upstream?.close();
  });

  it("serves the page's requests through wss:// and nginx, one stream through each instance", async () => {
    const fetch = createWispRelayFetch(
      `wss://127.0.0.1:${port}/wisp/`,
      [ca.certPem],
      createEpoxyEngine(() => readFile(wasmPath)),
    );
    const get: UpstreamInit = { method: "GET", headers: [["accept", "*/*"]], body: null, redirect: "manual" };
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`https://upstream.test:${upstream.port}/ok`, get);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("ok from");
    }
    for (const relay of relays) {
      const record = await relay.record((r) => r.kind === "relay.stream" && r.name === "upstream.test");
      // The client is the page's address as nginx saw it (X-Forwarded-For from a trusted proxy).
      expect(record).toMatchObject({ code: "served", refused: false, client: "127.0.0.1", address: "127.0.0.1" });
    }
  });
});

async function readFile(path: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(readFileSync(path));
}

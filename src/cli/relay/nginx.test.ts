import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientOptions, WebSocket } from "ws";
import { type HttpsUpstream, startHttpsUpstream } from "../../../e2e/support/https-upstream";
import { createTestCa, type TestCa } from "../../../e2e/support/test-ca";
import { createEpoxyEngine, createWispRelayFetch } from "../../page/relay";
import type { UpstreamInit } from "../../proxy";
import { type RunningRelay, runRelay } from "./testing/harness";

// The recipe for many users (docs/relay.md): nginx (Debian's package) terminating TLS on
// loopback in front of two `npx tab relay` instances, and the page's own relay fetch (epoxy-tls,
// as in the page) connecting through wss://. Each request opens its own WebSocket, so nginx's
// round robin sends one to each instance. The certificate is made at test time by the test CA;
// nginx runs on an unprivileged port from its own temporary prefix, and is stopped at the end.

const nginxBinary = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => spawnSync(path, ["-v"]).status === 0);
const wasmPath = join(import.meta.dirname, "..", "..", "..", "node_modules", "@mercuryworkshop", "epoxy-tls", "full", "epoxy.wasm");
const PAGE_ORIGIN = "http://127.0.0.1:4173";

let ca: TestCa;
let upstream: HttpsUpstream;
const relays: RunningRelay[] = [];
let nginx: ChildProcess | undefined;
let prefix: string;
let port: number;

/** The nginx configuration docs/relay.md gives, with this run's ports, certificate and prefix. */
function nginxConfig(dir: string, listen: number, relayPorts: number[]): string {
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  upstream tab_relay {
${relayPorts.map((p) => `    server 127.0.0.1:${p};`).join("\n")}
  }
  map $http_upgrade $connection_upgrade { default upgrade; "" close; }
  server {
    listen 127.0.0.1:${listen} ssl;
    server_name relay.test;
    ssl_certificate ${dir}/relay.pem;
    ssl_certificate_key ${dir}/relay.key;
    location /wisp/ {
      proxy_pass http://tab_relay/;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 180s;
      proxy_send_timeout 180s;
    }
  }
}
`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: free } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return free;
}

describe.skipIf(nginxBinary === undefined)("many users: nginx with TLS in front of two relay instances", () => {
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
    prefix = mkdtempSync(join(tmpdir(), "tab-nginx-"));
    mkdirSync(join(prefix, "tmp"));
    const leaf = ca.issue(["relay.test"]);
    writeFileSync(join(prefix, "relay.pem"), leaf.certPem);
    writeFileSync(join(prefix, "relay.key"), leaf.keyPem);
    port = await freePort();
    const relayPorts = relays.map((r) => Number(new URL(r.url).port));
    writeFileSync(join(prefix, "nginx.conf"), nginxConfig(prefix, port, relayPorts));
    nginx = spawn(nginxBinary as string, ["-p", prefix, "-e", join(prefix, "error.log"), "-c", join(prefix, "nginx.conf")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    // Listening once a TCP connection is accepted (bounded: 100 tries).
    for (let tries = 0; ; tries++) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: "127.0.0.1", port });
        socket.once("connect", () => {
          socket.destroy();
          resolve(true);
        });
        socket.once("error", () => resolve(false));
      });
      if (up) break;
      if (tries > 100 || nginx.exitCode !== null)
        throw new Error(`nginx did not start: ${readFileSync(join(prefix, "error.log"), "utf8")}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx?.once("exit", resolve));
      nginx.kill("SIGTERM"); // fast shutdown: open WebSockets are cut
      await exited;
    }
    for (const relay of relays) relay.child.kill("SIGINT");
    await upstream?.close();
    if (prefix) rmSync(prefix, { recursive: true, force: true });
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

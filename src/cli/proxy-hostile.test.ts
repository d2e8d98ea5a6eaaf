import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningProxy, startProxy, untilClosed } from "./testing/proxy-process";

// Issue 52's class of crash (an EventEmitter with no 'error' listener on a path a client can
// reach ends the process), looked for in `npx tab proxy`: clients and upstreams that break off
// mid-exchange, each bounded, against the real process. After each, a new request must be
// answered; at the end, the process must be alive and have printed no stack trace.

const CASE_MS = 15_000;

/** How the hostile upstream answers, by the request's path. */
const UPSTREAM_ANSWERS: Record<string, (socket: Socket) => void> = {
  "/gzip-not-gzip": (s) => s.end("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\n\r\nnot gzip !!!"),
  "/gzip-then-reset": (s) => {
    s.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4000\r\n\r\n\x1f\x8b\x08\x00broken");
    setTimeout(() => s.resetAndDestroy(), 30);
  },
  "/body-then-reset": (s) => {
    s.write("HTTP/1.1 200 OK\r\nContent-Length: 4000\r\n\r\nthe first bytes");
    setTimeout(() => s.resetAndDestroy(), 30);
  },
  "/204-then-reset": (s) => {
    s.write("HTTP/1.1 204 No Content\r\n\r\nbytes after a 204");
    setTimeout(() => s.resetAndDestroy(), 30);
  },
  "/bad-chunk": (s) => s.end("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
  "/not-http": (s) => s.end("this is not HTTP\r\n\r\n"),
  "/reset-at-once": (s) => s.resetAndDestroy(),
};

let upstream: Server;
let upstreamPort: number;
let dir: string;
let proxy: RunningProxy;
let stderr = "";

beforeAll(async () => {
  upstream = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.once("data", (head: Buffer) => {
      const path = /^GET (\S+) /.exec(head.toString("latin1"))?.[1] ?? "";
      (UPSTREAM_ANSWERS[path] ?? ((s: Socket) => s.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")))(socket);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamPort = (upstream.address() as { port: number }).port;
  dir = await mkdtemp(join(tmpdir(), "tab-proxy-hostile-"));
  const policyFile = join(dir, "policy.yaml");
  await writeFile(policyFile, `version: 1\nhttp: allow\nhosts:\n  - host: localhost\n    ports: [${upstreamPort}]\n`);
  proxy = await startProxy(["--policy", policyFile, "--allow-private-for-tests", "127.0.0.1,::1", "--upstream-timeout", "3"]);
  proxy.child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
}, 60_000);

afterAll(async () => {
  proxy?.child.kill("SIGTERM");
  upstream?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A new client is answered: the proxy's own GET /v0/policy. */
async function newClientAnswered(): Promise<void> {
  const answer = await untilClosed(proxy.url, `GET /v0/policy HTTP/1.1\r\nHost: ${proxy.host}\r\nConnection: close\r\n\r\n`);
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
}

/** Writes `bytes`, waits a moment (or until the proxy closes), then leaves as told: a reset or a plain close. */
async function sendAndLeave(bytes: string | Buffer, leave: "reset" | "close", waitMs = 300): Promise<void> {
  const { hostname, port } = new URL(proxy.url);
  const socket = connect(Number(port), hostname);
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  socket.write(bytes);
  await Promise.race([new Promise((resolve) => socket.once("close", resolve)), new Promise((resolve) => setTimeout(resolve, waitMs))]);
  if (leave === "reset") socket.resetAndDestroy();
  else socket.destroy();
}

const viaProxy = (path: string) =>
  `GET http://localhost:${upstreamPort}${path} HTTP/1.1\r\nHost: localhost:${upstreamPort}\r\nAccept-Encoding: gzip\r\n\r\n`;

describe("npx tab proxy goes on when a client breaks off", () => {
  it.each([
    ["bytes that are not HTTP", "\u0000\u00ff garbage\r\n\r\n"],
    ["1 MiB of one byte, no line end", Buffer.alloc(1024 * 1024, 0x41)],
    ["a CONNECT, then half a TLS record", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01\x00\x40hello"],
    [
      "a CONNECT, then a TLS record header claiming 64 KiB",
      "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01\xff\xff",
    ],
    ["a request for an upstream, reset before its answer", viaProxy("/body-then-reset")],
  ])(
    "%s, then a reset or a close",
    async (_label, bytes) => {
      await sendAndLeave(bytes, "reset", 50);
      await sendAndLeave(bytes, "close", 50);
      await newClientAnswered();
    },
    CASE_MS,
  );
});

describe("npx tab proxy goes on when an upstream breaks off", () => {
  it.each(Object.keys(UPSTREAM_ANSWERS))(
    "an upstream answering %s",
    async (path) => {
      await sendAndLeave(viaProxy(path), "close");
      await sendAndLeave(viaProxy(path), "reset", 50);
      await newClientAnswered();
    },
    CASE_MS,
  );
});

describe("after the whole series", () => {
  it("the proxy process is alive, answers a new client, and printed no stack trace", async () => {
    expect(proxy.child.exitCode).toBeNull();
    await newClientAnswered();
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningProxy, startProxy, untilClosed } from "./testing/proxy-process";

// The same proxy core on a real socket, driven by a
// real client (/usr/bin/curl), so verdicts reproduce outside any browser.
//
// The local upstream is plain http on 127.0.0.1. The honest way to reach it: the test policy
// says `http: allow` (plain http, a policy option documented as for local test upstreams) and
// lists the upstream's port; the proxy is started with the test-only flag
// `--allow-private-for-tests 127.0.0.1,::1`, and the name `upstream.test` is answered
// 127.0.0.1 by the test-only `--resolve` (the name `localhost` itself is refused before any
// lookup, whatever the flags). Everything else is the production path: decide(), the address
// check of what the name resolved to, the pinned node:http connect, the framing. The https
// upstream path (servername = host) is not exercised here: it would need a local CA trusted by
// the Node upstream.

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");

async function curl(proxy: string, url: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { stdout } = await run("/usr/bin/curl", ["-s", "-i", "--max-time", "20", "-x", proxy, url], {
    env: { ...process.env, NO_PROXY: "", no_proxy: "" },
  });
  const end = stdout.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = stdout.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(":")).toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
  return { status: Number(statusLine.split(" ")[1]), headers, body: stdout.slice(end + 4) };
}

// TEST ONLY: the upstream's public-looking name, answered without DNS.
const RESOLVE = ["--resolve", "upstream.test=127.0.0.1"];

let upstream: Server;
let upstreamPort: number;
let dir: string;
let withFlag: RunningProxy;
let withoutFlag: RunningProxy;
let timed: RunningProxy;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    response.setHeader("content-type", "text/plain");
    response.end(`hello from upstream ${request.url}`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
  dir = await mkdtemp(join(tmpdir(), "tab-proxy-"));
  const policyFile = join(dir, "policy.yaml");
  await writeFile(policyFile, `version: 1\nhttp: allow\nhosts:\n  - host: upstream.test\n    ports: [${upstreamPort}]\n`);
  [withFlag, withoutFlag, timed] = await Promise.all([
    startProxy(["--policy", policyFile, "--allow-private-for-tests", "127.0.0.1,::1", ...RESOLVE]),
    startProxy(["--policy", policyFile, ...RESOLVE]),
    startProxy(["--policy", policyFile, "--head-timeout", "1", "--idle-timeout", "1", ...RESOLVE]),
  ]);
}, 60_000);

afterAll(async () => {
  withFlag?.child.kill("SIGTERM");
  withoutFlag?.child.kill("SIGTERM");
  timed?.child.kill("SIGTERM");
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("npx tab proxy with curl", () => {
  it("serves an allowed request to the local upstream and prints its decision on stdout", async () => {
    const response = await curl(withFlag.url, `http://upstream.test:${upstreamPort}/hello`);
    expect(response).toMatchObject({ status: 200, body: "hello from upstream /hello" });
    expect(response.headers["x-verdict"]).toBe("served");
    // The decision line is written once the response is complete; wait for it to arrive.
    await vi.waitFor(() => expect(withFlag.stdout()).toContain(`"target":"http://upstream.test:${upstreamPort}/hello"`), {
      timeout: 10_000,
    });
    const lines = withFlag
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toContainEqual(
      expect.objectContaining({ kind: "proxy.decision", code: "served", target: `http://upstream.test:${upstreamPort}/hello` }),
    );
  });

  it.each([
    ["a host not on the allowlist", "http://pastebin.com/raw/x", "host-not-allowed"],
    ["an IP literal", "http://93.184.216.34/", "ip-literal"],
    ["an IP literal in decimal", "http://2130706433/", "ip-literal"],
  ])("refuses %s with 403, X-Verdict and the JSON body", async (_name, url, code) => {
    const response = await curl(withFlag.url, url);
    expect(response.status).toBe(403);
    expect(response.headers["x-verdict"]).toBe(code);
    expect(JSON.parse(response.body)).toMatchObject({ verdict: "refused", code });
  });

  it("refuses a name resolving to a private address without the test-only flag (private-address)", async () => {
    const response = await curl(withoutFlag.url, `http://upstream.test:${upstreamPort}/hello`);
    expect(response.status).toBe(403);
    expect(response.headers["x-verdict"]).toBe("private-address");
    expect(JSON.parse(response.body).reason).toMatch(/resolved to (127\.0\.0\.1|::1) \(loopback\)/);
  });

  it("serves GET /v0/policy with the hash printed at startup", async () => {
    const { stdout } = await run("/usr/bin/curl", ["-s", `${withFlag.url}/v0/policy`]);
    const body = JSON.parse(stdout) as { sha256: string; policy: { http: string } };
    expect(body.policy.http).toBe("allow");
    expect(body.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("npx tab proxy --head-timeout / --idle-timeout on a real socket (architecture.md known debt: proxy idle timeout)", () => {
  it("answers a client that sends half a request head 408 with X-Verdict, prints the decision, and closes", async () => {
    const received = await untilClosed(timed.url, `GET http://upstream.test:${upstreamPort}/hello HTTP/1.1\r\nHo`);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(received).toContain("X-Verdict: request-timeout\r\n");
    await vi.waitFor(() => expect(timed.stdout()).toContain('"status":408'), { timeout: 10_000 });
    const decision = timed
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((e) => e.kind === "proxy.decision" && e.status === 408);
    expect(decision).toMatchObject({ code: "request-timeout", allowed: false, reason: expect.stringContaining("request timeout") });
  });

  it("closes a keep-alive connection that goes quiet after its answer, and prints the idle note", async () => {
    const host = new URL(timed.url).host;
    const received = await untilClosed(timed.url, `GET /v0/policy HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).not.toContain("Connection: close");
    await vi.waitFor(() => expect(timed.stdout()).toContain('"kind":"note"'), { timeout: 10_000 });
    expect(timed.stdout()).toMatch(/"source":"proxy","message":"idle timeout: closed a connection \(last request r\d+\)/);
  });

  it.each([
    ["zero", "0"],
    ["not a number", "soon"],
  ])("refuses an --idle-timeout that is %s with usage exit code 64", async (_name, value) => {
    const outcome = await run(process.execPath, [join(root, "bin", "tab.mjs"), "proxy", "--idle-timeout", value]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome).toMatchObject({
      code: 64,
      stderr: expect.stringContaining(`--idle-timeout ${value} is not a positive number of seconds`),
    });
  });
});

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createEventLog } from "../log";
import { Policy } from "../policy";
import { createProxy, type UpstreamFetch } from "../proxy";
import { memoryConnection, parseResponse } from "../proxy/testing/memory";
import { type RunningProxy, startProxy } from "./testing/proxy-process";

// The guarantee no material can lift (docs/decisions/0028-material-from-a-link-is-untrusted.md): a policy in report
// mode that names `localhost` explicitly (what a hostile draft link carried, issue 46) still
// gets no request to the reader's machine. A real HTTP server on 127.0.0.1 counts what reaches
// it. Through the page's proxy core the upstream fetch is one that would reach that server
// (as the browser's fetch() would for `localhost`); through `npx tab proxy` the test-only
// flag allows 127.0.0.1 as an upstream address, so only the name rule stands in the way. In
// each, a control request to an allowed public-looking name reaches the same server, so the
// counts can tell.

const run = promisify(execFile);

let server: Server;
let port = 0;
const seen: string[] = [];
let dir = "";
let cli: RunningProxy;

const PRIVATE_TARGETS = (p: number) => [
  `http://localhost:${p}/secret`,
  `http://LOCALHOST.:${p}/secret`,
  `http://a.localhost:${p}/secret`,
  `http://127-0-0-1.nip.io:${p}/secret`,
  `http://localhost.localdomain:${p}/secret`,
];

const reportPolicy = (p: number) => ({
  version: 1,
  mode: "report",
  http: "allow",
  ports: [p],
  hosts: [{ host: "localhost" }, { host: "upstream.test" }],
});

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.headers.host} ${request.url}`);
    response.end("the reader's machine answered");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  dir = await mkdtemp(join(tmpdir(), "tab-private-"));
  await writeFile(join(dir, "report.json"), JSON.stringify(reportPolicy(port)));
  cli = await startProxy([
    "--policy",
    join(dir, "report.json"),
    "--allow-private-for-tests",
    "127.0.0.1,::1",
    "--resolve",
    "upstream.test=127.0.0.1",
  ]);
}, 60_000);

afterAll(async () => {
  cli?.child.kill("SIGTERM");
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("under report mode and a policy naming localhost, localhost is refused private-address and a local server sees no request", () => {
  it("through the page's proxy core, whose fetch would reach the server", async () => {
    const log = createEventLog();
    // What the browser's fetch() does with these names: reach this machine.
    const fetch: UpstreamFetch = (url, init) => {
      const local = new URL(url);
      local.hostname = "127.0.0.1";
      return globalThis.fetch(local, { method: init.method, headers: [...init.headers] });
    };
    const proxy = createProxy({
      policy: () => Policy.parse(reportPolicy(port)),
      fetch,
      clock: () => 0,
      log,
      ownHost: "10.0.2.2:3128",
    });
    const send = async (url: string) => {
      const client = memoryConnection();
      const done = proxy.handle(client.server);
      await client.send(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\n\r\n`);
      const text = await client.readToEnd();
      await done;
      return parseResponse(text);
    };
    const before = seen.length;
    for (const url of PRIVATE_TARGETS(port)) {
      const response = await send(url);
      expect(response.status, url).toBe(403);
      expect(response.headers["x-verdict"], url).toBe("private-address");
    }
    expect(seen.slice(before)).toEqual([]);
    expect(log.ofKind("proxy.decision").map((d) => [d.code, d.allowed, d.wouldRefuse])).toEqual(
      PRIVATE_TARGETS(port).map(() => ["private-address", false, undefined]),
    );
    // The control: the same fetch reaches the server for a name the guarantee does not refuse.
    expect(await send(`http://upstream.test:${port}/control`)).toMatchObject({ status: 200, body: "the reader's machine answered" });
    expect(seen.slice(before)).toEqual([`GET 127.0.0.1:${port} /control`]);
  });

  it("through npx tab proxy, with 127.0.0.1 allowed as an address (test only)", async () => {
    const curl = async (args: string[]) =>
      (
        await run("/usr/bin/curl", ["-s", "-i", "--max-time", "20", "-x", cli.url, ...args], {
          env: { ...process.env, NO_PROXY: "", no_proxy: "" },
        }).catch((error: { stdout: string }) => error)
      ).stdout;
    const before = seen.length;
    for (const url of PRIVATE_TARGETS(port)) {
      const response = parseResponse(await curl([url]));
      expect(response.status, url).toBe(403);
      expect(response.headers["x-verdict"], url).toBe("private-address");
    }
    // CONNECT too: the tunnel is never opened, so nothing is fetched inside it.
    const tunnel = await curl([`https://localhost:${port}/secret`]);
    expect(tunnel).toMatch(/^HTTP\/1\.1 403 [^\r]*\r\n/);
    expect(tunnel).toContain("X-Verdict: private-address");
    expect(seen.slice(before)).toEqual([]);
    // The control: the name the test maps to 127.0.0.1 is served by the same server.
    expect(parseResponse(await curl([`http://upstream.test:${port}/control`]))).toMatchObject({ status: 200 });
    await vi.waitFor(() => expect(cli.stdout()).toContain("/control"), { timeout: 10_000 });
    expect(seen.slice(before)).toEqual([`GET upstream.test:${port} /control`]);
  });
});

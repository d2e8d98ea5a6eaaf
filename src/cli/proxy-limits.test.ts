import { execFile } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningProxy, startProxy, untilClosed } from "./testing/proxy-process";

// The proxy's hardening on a real socket: `npx tab proxy` with the body limits and timeouts set by flag
// answers hostile clients with a coded refusal and prints one decision for each. No upstream
// is needed: every request here is refused before one would be fetched (bodies go to the
// proxy's own POST /v0/fetch, which reads them before deciding on their URL).

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");

const decisions = (proxy: RunningProxy) =>
  proxy
    .stdout()
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; code?: string; status?: number; reason?: string })
    .filter((e) => e.kind === "proxy.decision");

/** The head of a POST /v0/fetch as a guest's curl sends it, up to its framing header. */
const fetchHead = (proxy: RunningProxy) => `POST /v0/fetch HTTP/1.1\r\nHost: ${proxy.host}\r\nContent-Type: application/json\r\n`;

let limited: RunningProxy;

beforeAll(async () => {
  limited = await startProxy(["--body-timeout", "1", "--max-body", "0.01", "--max-chunks", "50", "--body-budget", "1"]);
}, 60_000);

afterAll(() => {
  limited?.child.kill("SIGTERM");
});

describe("npx tab proxy bounds request bodies by flag", () => {
  it("answers a body that stops short 408 request-timeout after --body-timeout and prints the decision", async () => {
    const received = await untilClosed(limited.url, `${fetchHead(limited)}Content-Length: 10\r\n\r\n{"url"`);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(received).toContain("X-Verdict: request-timeout\r\n");
    await vi.waitFor(() => expect(decisions(limited)).toContainEqual(expect.objectContaining({ code: "request-timeout", status: 408 })), {
      timeout: 10_000,
    });
  });

  it("refuses a body over --max-body 413 too-large without reading it", async () => {
    const received = await untilClosed(limited.url, `${fetchHead(limited)}Content-Length: 20000\r\n\r\n`);
    expect(received).toMatch(/^HTTP\/1\.1 413 Content Too Large\r\n/);
    expect(received).toContain("X-Verdict: too-large\r\n");
  });

  it("refuses a body of 1-byte chunks past --max-chunks 413 too-large", async () => {
    const chunks = "1\r\nx\r\n".repeat(60);
    const received = await untilClosed(limited.url, `${fetchHead(limited)}Transfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain("more than 50 chunks");
  });

  it("refuses a browser's cross-site POST /v0/fetch (text/plain, another Origin) 403, unfetched", async () => {
    const body = '{"url":"https://api.github.com/zen"}';
    const received = await untilClosed(
      limited.url,
      `POST /v0/fetch HTTP/1.1\r\nHost: ${limited.host}\r\nOrigin: https://evil.example\r\nSec-Fetch-Site: cross-site\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(received).toMatch(/^HTTP\/1\.1 403 /);
    expect(received).toContain("X-Verdict: endpoint-not-allowed\r\n");
  });

  it.each([
    ["--max-body", "0"],
    ["--body-budget", "lots"],
    ["--body-timeout", "never"],
    ["--max-chunks", ""],
  ])("refuses %s %j with usage exit code 64", async (flag, value) => {
    const outcome = await run(process.execPath, [join(root, "bin", "tab.mjs"), "proxy", flag, value]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome).toMatchObject({ code: 64, stderr: expect.stringContaining(`${flag} ${value} is not a positive number`) });
  });
});

describe("npx tab proxy caps the connections it serves by flag", () => {
  it("with --max-connections 1 held by a silent client, the next connection is answered 503 too-many-connections and printed", async () => {
    const capped = await startProxy(["--max-connections", "1"]);
    const { hostname, port } = new URL(capped.url);
    const silent = connect(Number(port), hostname);
    try {
      await once(silent, "connect");
      // Retried until the proxy has taken the silent client's connection as its one slot.
      await vi.waitFor(
        async () => {
          const received = await untilClosed(capped.url, "GET / HTTP/1.1\r\n\r\n");
          expect(received).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
          expect(received).toContain("X-Verdict: too-many-connections\r\n");
        },
        { timeout: 10_000 },
      );
      await vi.waitFor(
        () => expect(decisions(capped)).toContainEqual(expect.objectContaining({ code: "too-many-connections", status: 503 })),
        {
          timeout: 10_000,
        },
      );
    } finally {
      silent.destroy();
      capped.child.kill("SIGTERM");
    }
  }, 60_000);
});

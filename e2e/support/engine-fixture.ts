import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type RunningRelay, runRelay } from "../../src/cli/relay/testing/harness";
import { type HttpsUpstream, startHttpsUpstream } from "./https-upstream";
import { createTestCa } from "./test-ca";

/**
 * What the engine tests serve the page with, the same for every engine and without any
 * browser's request interception (classic WebDriver has none): the verdict table's upstream
 * (api.github.com: `/zen`, and the tarball that redirects to another host) is a local HTTPS
 * server under a test CA, reached through `npx tab relay` (a real child process) with the page
 * as the TLS client, as a reader behind a relay uses it. The page trusts the test CA through
 * the TEST ONLY global (src/page/relay/test-trust.ts), which a small server in front of the
 * built page defines in its HTML, since classic WebDriver cannot run a script before the page's.
 */
export interface EngineFixture {
  /** The playground's URL with the relay set: `?relay=…` (add `&boot=fresh` for a cold boot). */
  pageUrl: string;
  upstream: HttpsUpstream;
  relay: RunningRelay;
  close(): Promise<void>;
}

/** The saying api.github.com/zen answers with. */
export const ENGINE_ZEN = "Every engine speaks TLS.";
/** Its own loopback address, so it never meets relay.spec.ts's upstream (127.0.0.19) on port 443. */
const UPSTREAM_ADDRESS = "127.0.0.29";

/** Whether the upstream can listen on 443, which the verdict table's URLs name (root only). */
export const canServeUpstream = process.getuid?.() === 0;

export async function startEngineFixture(baseURL: string): Promise<EngineFixture> {
  const ca = createTestCa();
  const upstream = await startHttpsUpstream(
    ca,
    { "api.github.com": ["api.github.com"] },
    { host: UPSTREAM_ADDRESS, port: canServeUpstream ? 443 : 0 },
    {
      "/zen": { status: 200, headers: { "content-type": "text/plain" }, body: ENGINE_ZEN },
      "/repos/octocat/Hello-World/tarball": {
        status: 302,
        headers: { location: "https://evil.example/", "content-length": "0" },
        body: "",
      },
    },
  );
  let relay: RunningRelay | undefined;
  let front: Server | undefined;
  try {
    relay = await runRelay(["--allow-private-for-tests", UPSTREAM_ADDRESS, "--resolve", `api.github.com=${UPSTREAM_ADDRESS}`]);
    front = await serveWithTrust(baseURL, ca.certPem);
    const origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const started = { relay, front };
    return {
      pageUrl: `${origin}/?relay=${encodeURIComponent(relay.url)}`,
      upstream,
      relay,
      async close() {
        started.relay.child.kill("SIGINT");
        await new Promise((resolve) => started.front.close(resolve));
        await upstream.close();
      },
    };
  } catch (error) {
    relay?.child.kill("SIGINT");
    front?.close();
    await upstream.close();
    throw error;
  }
}

/**
 * The built page as the suite's web server serves it, on another loopback port, with the test
 * CA defined before the page's scripts in every HTML answer. Everything else passes unchanged.
 */
async function serveWithTrust(baseURL: string, caPem: string): Promise<Server> {
  const trust = `<script>globalThis.__TAB_TEST_TRUST_ANCHORS__ = ${JSON.stringify([caPem])};</script>`;
  const server = createServer((request, response) => {
    void (async () => {
      const answer = await fetch(new URL(request.url ?? "/", baseURL), { method: request.method ?? "GET" });
      const type = answer.headers.get("content-type") ?? "application/octet-stream";
      let body = Buffer.from(await answer.arrayBuffer());
      if (type.startsWith("text/html")) body = Buffer.from(body.toString("utf8").replace("<head>", `<head>${trust}`));
      response.writeHead(answer.status, { "content-type": type, "content-length": body.length, "cache-control": "no-cache" });
      response.end(body);
    })().catch((error: unknown) => {
      response.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return server;
}

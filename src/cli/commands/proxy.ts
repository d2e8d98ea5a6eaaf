import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { parseArgs } from "node:util";
import { createEventLog } from "../../log";
import { DEFAULT_POLICY, loadPolicy, type Policy, policyHash } from "../../policy";
import { createProxy, type EgressProxy } from "../../proxy";
import type { Command } from "../main";
import { socketStream } from "../proxy-socket";
import { createNodeUpstream } from "../proxy-upstream";

/**
 * `npx tab proxy`: the page's proxy core on a real socket, so a verdict can be reproduced
 * with curl and in CI. One JSON line per decision on stdout; the startup line on stderr.
 */

const USAGE = [
  "npx tab proxy [--policy FILE] [--port 3128] [--host 127.0.0.1] [--cors-relay URL]",
  "",
  "  --policy FILE     a policy in YAML or JSON (default: the page's default policy)",
  "  --port N          port to listen on; 0 picks a free one (printed on stderr)",
  "  --host ADDR       address to listen on (default 127.0.0.1)",
  "  --cors-relay URL  a CORS relay for upstreams a browser could not read ({url} is replaced)",
  "  --allow-private-for-tests ADDR[,ADDR]",
  "                    TEST ONLY: let these private addresses (e.g. 127.0.0.1) be upstreams.",
  "                    Never use it outside tests: it reopens the SSRF hole private-address closes.",
  "",
  "Use it with curl: curl -x http://127.0.0.1:3128 https://api.github.com/zen",
].join("\n");

export const command: Command = {
  summary: "proxy: run the allowlisting egress proxy (the page's core) on a real socket",
  usage: USAGE,
  async run(args) {
    let values: ReturnType<typeof parse>;
    try {
      values = parse(args);
    } catch (error) {
      process.stderr.write(`tab proxy: ${(error as Error).message}\n\nusage: ${USAGE}\n`);
      return 64;
    }
    const port = Number(values.port ?? "3128");
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`tab proxy: --port ${values.port} is not a port\n`);
      return 64;
    }
    const host = values.host ?? "127.0.0.1";
    let policy: Policy;
    try {
      policy = values.policy ? loadPolicy(await readFile(values.policy, "utf8"), values.policy) : DEFAULT_POLICY;
    } catch (error) {
      process.stderr.write(`tab proxy: ${(error as Error).message}\n`);
      return 1;
    }
    const allowPrivate = new Set(
      (values["allow-private-for-tests"] ?? "")
        .split(",")
        .map((a) => a.trim())
        .filter(Boolean),
    );
    if (allowPrivate.size > 0)
      process.stderr.write(`tab proxy: TEST ONLY: private upstream addresses allowed: ${[...allowPrivate].join(", ")}\n`);

    const log = createEventLog();
    log.subscribe((event) => {
      if (event.kind === "proxy.decision") process.stdout.write(`${JSON.stringify(event)}\n`);
    });
    const upstream = createNodeUpstream({ allowPrivate });
    let proxy: EgressProxy | null = null;
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      if (!proxy) return socket.destroy();
      socket.on("error", () => undefined); // reported through the stream; never crash the server
      void proxy.handle(socketStream(socket));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
    } catch (error) {
      process.stderr.write(`tab proxy: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
      return 1;
    }
    const address = server.address();
    const boundPort = typeof address === "object" && address ? address.port : port;
    const shownHost = host.includes(":") ? `[${host}]` : host;
    proxy = createProxy({
      policy: () => policy,
      fetch: upstream.fetch,
      resolveHost: upstream.resolveHost,
      clock: Date.now,
      log,
      ownHost: [`${shownHost}:${boundPort}`, `localhost:${boundPort}`],
      ...(values["cors-relay"] ? { corsRelay: values["cors-relay"] } : {}),
    });
    process.stderr.write(`tab proxy listening on http://${shownHost}:${boundPort} (policy sha256 ${await policyHash(policy)})\n`);

    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        server.close(() => resolve());
        // Open keep-alive connections would hold close() forever; the process is ending.
        setTimeout(resolve, 500).unref();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    return 0;
  },
};

function parse(args: string[]) {
  return parseArgs({
    args,
    options: {
      policy: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      "cors-relay": { type: "string" },
      "allow-private-for-tests": { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

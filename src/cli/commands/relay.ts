import { parseArgs } from "node:util";
import type { Command } from "../command";
import { createStreamCheck, DEFAULT_PORTS, parsePorts, parseResolveEntries } from "../relay/check";
import { recordLine } from "../relay/record";
import { type Relay, startRelay } from "../relay/server";

/**
 * `npx tab relay`: a Wisp relay (TCP over WebSocket) for the page, built on wisp-js's server.
 * It only moves TCP bytes (the page is the TLS client, so it never sees plaintext), and only to
 * public addresses on ports 443 and 80 unless widened. docs/relay.md.
 */

const DEFAULT_PORT = 5001;

const USAGE = [
  "npx tab relay [--port 5001] [--host 127.0.0.1] [--allow-ports PORT[,PORT]]",
  "              [--allow-private-for-tests ADDR[,ADDR]] [--resolve NAME=IP ...]",
  "",
  "A WebSocket relay speaking the Wisp protocol (TCP over WebSocket), for the page's Wisp",
  "client: clients connect to ws://HOST:PORT/ and open TCP streams through it. It only moves",
  "TCP bytes; TLS is end to end between the page and the destination.",
  "",
  "  --port N          port to listen on; 0 picks a free one (printed on stderr)",
  "  --host ADDR       address to listen on (default 127.0.0.1)",
  "  --allow-ports LIST",
  `                    destination ports allowed besides ${DEFAULT_PORTS.join(" and ")} (comma-separated)`,
  "",
  "Every stream is checked before any connection: the destination port must be allowed; the",
  "name is resolved once, every address it resolves to must be public (loopback, private,",
  "link-local, CGNAT, documentation and other special-purpose addresses are refused), and the",
  "stream connects to that checked address only. A refused stream is closed with Wisp's",
  "HostBlocked reason. UDP streams are never relayed.",
  "",
  "Output: one JSON line per stream on stdout when it closes: name, address, port, bytes each",
  "way, duration, whether it was refused and why. Startup and errors go to stderr. Ctrl+C",
  "closes every stream (Wisp CLOSE) and WebSocket, then exits 0.",
  "",
  "TEST ONLY, never in a deployment:",
  "  --allow-private-for-tests ADDR[,ADDR]",
  "                    let these non-public addresses (e.g. 127.0.0.1) be destinations.",
  "  --resolve NAME=IP answer NAME with IP instead of asking DNS (repeatable).",
  "",
  "Behind a reverse proxy with TLS (wss://) for a shared deployment: docs/relay.md.",
].join("\n");

export const command: Command = {
  summary: "relay: a Wisp (TCP over WebSocket) relay to public addresses on ports 443 and 80",
  usage: USAGE,
  async run(args) {
    const fail = (message: string, code = 64): number => {
      process.stderr.write(`tab relay: ${message}\n${code === 64 ? `\nusage: ${USAGE}\n` : ""}`);
      return code;
    };
    let values: ReturnType<typeof parse>;
    try {
      values = parse(args);
    } catch (error) {
      return fail((error as Error).message);
    }
    const port = Number(values.port ?? DEFAULT_PORT);
    if (!/^\d{1,5}$/.test(values.port ?? String(DEFAULT_PORT)) || port > 65535) return fail(`--port ${values.port} is not a port`);
    const host = values.host ?? "127.0.0.1";
    const extraPorts = values["allow-ports"] === undefined ? [] : parsePorts(values["allow-ports"]);
    if (extraPorts === null) return fail(`--allow-ports ${values["allow-ports"]} is not a list of ports 1-65535`);
    const resolve = parseResolveEntries(values.resolve ?? []);
    if ("error" in resolve) return fail(resolve.error);
    const allowPrivate = new Set(
      (values["allow-private-for-tests"] ?? "")
        .split(",")
        .map((a) => a.trim().replace(/^\[(.*)\]$/, "$1"))
        .filter(Boolean),
    );
    if (allowPrivate.size > 0)
      process.stderr.write(`tab relay: TEST ONLY: non-public destinations allowed: ${[...allowPrivate].join(", ")}\n`);
    if (resolve.size > 0)
      process.stderr.write(`tab relay: TEST ONLY: names answered without DNS: ${[...resolve].map(([n, a]) => `${n}=${a}`).join(", ")}\n`);

    const ports = new Set([...DEFAULT_PORTS, ...extraPorts]);
    let relay: Relay;
    try {
      relay = await startRelay({
        host,
        port,
        check: createStreamCheck({ ports, allowPrivateForTests: allowPrivate, resolve }),
        report: (record) => process.stdout.write(recordLine(record)),
      });
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      const why =
        code === "EADDRINUSE"
          ? `port ${port} is already in use on ${host}; stop what holds it or choose another with --port (0 picks a free one)`
          : message;
      return fail(`cannot listen on ${host}:${port}: ${why}`, 1);
    }
    const shownPorts = [...ports].sort((a, b) => a - b).join(", ");
    process.stderr.write(`tab relay listening on ${relay.url} (destination ports ${shownPorts})\n`);

    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    process.stderr.write("tab relay: closing streams\n");
    await relay.close();
    return 0;
  },
};

function parse(args: string[]) {
  return parseArgs({
    args,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "allow-ports": { type: "string" },
      "allow-private-for-tests": { type: "string" },
      resolve: { type: "string", multiple: true },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

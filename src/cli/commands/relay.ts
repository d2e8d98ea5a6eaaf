import { readFileSync } from "node:fs";
import { messageOf } from "../../platform";
import { parseCommandLine } from "../args";
import type { Command } from "../command";
import { createStreamCheck, DEFAULT_PORTS, parsePorts, parseResolveEntries } from "../relay/check";
import { DEFAULT_RELAY_LIMITS, descriptorLimit, fitToDescriptors, MAX_MESSAGE_BYTES, type RelayLimits } from "../relay/limits";
import { DEFAULT_ALLOWED_ORIGINS, type OriginRule, parseOriginRule } from "../relay/origin";
import { recordLine } from "../relay/record";
import { type Relay, startRelay } from "../relay/server";
import { untilShutdownSignal } from "../shutdown-signal";

/**
 * `npx tab relay`: a Wisp relay (TCP over WebSocket) for the page, built on wisp-js's server.
 * It only moves TCP bytes (the page is the TLS client, so it never sees plaintext), and only to
 * public addresses on ports 443 and 80 unless widened. docs/relay.md.
 */

const DEFAULT_PORT = 5001;

const D = DEFAULT_RELAY_LIMITS;

const USAGE = [
  "npx tab relay [--port 5001] [--host 127.0.0.1] [--allow-ports PORT[,PORT]]",
  "              [--allow-origin ORIGIN ...] [--token-file FILE] [--trust-proxy ADDR[,ADDR]]",
  "              [--idle-timeout S] [--max-websockets-per-client N] [--max-streams-per-websocket N]",
  "              [--max-streams N] [--streams-per-second N]",
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
  "Who may connect: only the playground's pages. A WebSocket has no CORS, so the relay checks",
  `the upgrade's Origin itself: by default only ${DEFAULT_ALLOWED_ORIGINS.join(" and ")} (any port).`,
  "Any other origin, Origin: null or no Origin at all gets HTTP 403 before the upgrade, and one",
  '"relay.refused" line on stdout.',
  "  --allow-origin ORIGIN",
  "                    also allow this origin (repeatable), matched exactly: scheme://host[:port],",
  "                    * only as the port (e.g. --allow-origin https://tab.example.org)",
  "  --token-file FILE require this token (the file's first line): clients pass it in the relay",
  "                    URL, wss://relay.example.org/?token=TOKEN; without it, HTTP 401",
  "  --trust-proxy ADDR[,ADDR]",
  "                    reverse proxies at these addresses name the client in X-Forwarded-For",
  "",
  "Caps (docs/limits.md); a stream past one is closed with Wisp's ConnThrottled reason, an",
  "idle one with TransferTimeout, a WebSocket past its cap refused HTTP 429 before the upgrade:",
  `  --idle-timeout S  close a stream with no traffic either way for S seconds (default ${D.idleTimeoutMs / 1000})`,
  `  --max-websockets-per-client N   WebSockets open at once per client address (default ${D.websocketsPerClient})`,
  `  --max-streams-per-websocket N   streams open at once on one WebSocket (default ${D.streamsPerWebsocket})`,
  `  --max-streams N   streams open at once in all (default ${D.streamsTotal}, lowered below the open-files limit)`,
  `  --streams-per-second N          streams a client may open per second (default ${D.streamsPerSecond}, burst twice that)`,
  "A client that sends more DATA than its CONTINUE grant, or past the bytes the relay holds for",
  "a slow destination, is closed ConnThrottled; a client that stops reading pauses the",
  "destination, and its WebSocket is closed if it still stops reading.",
  "",
  "Every stream is checked before any connection: the destination port must be allowed; the",
  "name is resolved once, every address it resolves to must be public (loopback, private,",
  "link-local, CGNAT, documentation and other special-purpose addresses are refused), and the",
  "stream connects to that checked address only. A refused stream is closed with Wisp's",
  "HostBlocked reason, and so is a name that does not resolve (the client cannot tell the two",
  "apart; the stream's line can). UDP streams are never relayed.",
  "",
  "Output: one JSON line per stream on stdout when it closes: name, address, port, bytes each",
  'way, duration, whether it was refused and why; one "relay.closed" line per WebSocket the',
  `relay closed on its own: a message past ${MAX_MESSAGE_BYTES / 1024} KiB (close 1009), a protocol error (1002,`,
  "1007), a client that stopped reading (cut). Only that WebSocket ends; the relay goes on.",
  "Startup and errors go to stderr. Ctrl+C",
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
      return fail(messageOf(error));
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

    const origins: OriginRule[] = [];
    for (const text of [...DEFAULT_ALLOWED_ORIGINS, ...(values["allow-origin"] ?? [])]) {
      const rule = parseOriginRule(text);
      if ("error" in rule) return fail(rule.error);
      origins.push(rule);
    }
    let token: string | null = null;
    if (values["token-file"] !== undefined) {
      try {
        token = readFileSync(values["token-file"], "utf8").split(/\r?\n/)[0]?.trim() ?? "";
      } catch (error) {
        return fail(`--token-file ${values["token-file"]}: ${messageOf(error)}`, 1);
      }
      if (!/^[A-Za-z0-9._~-]{16,256}$/.test(token))
        return fail(
          `--token-file ${values["token-file"]}: the token must be 16-256 characters of A-Z a-z 0-9 . _ ~ - (e.g. openssl rand -hex 32)`,
        );
    }
    const trustedProxies = new Set(
      (values["trust-proxy"] ?? "")
        .split(",")
        .map((a) => a.trim().replace(/^\[(.*)\]$/, "$1"))
        .filter(Boolean),
    );
    const limits = limitsFrom(values);
    if (typeof limits === "string") return fail(limits);

    const ports = new Set([...DEFAULT_PORTS, ...extraPorts]);
    let relay: Relay;
    try {
      relay = await startRelay({
        host,
        port,
        check: createStreamCheck({ ports, allowPrivateForTests: allowPrivate, resolve }),
        admission: { origins, token, trustedProxies, limits },
        report: (record) => process.stdout.write(recordLine(record)),
        warn: (line) => process.stderr.write(`tab relay: ${line}\n`),
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
    process.stderr.write(
      `tab relay: origins allowed: ${[...DEFAULT_ALLOWED_ORIGINS, ...(values["allow-origin"] ?? [])].join(", ")}${token === null ? "" : "; token required"}; at most ${limits.streamsTotal} streams and ${limits.websocketsTotal} WebSockets\n`,
    );

    await untilShutdownSignal();
    process.stderr.write("tab relay: closing streams\n");
    await relay.close();
    return 0;
  },
};

function parse(args: string[]) {
  return parseCommandLine({
    args,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "allow-ports": { type: "string" },
      "allow-private-for-tests": { type: "string" },
      resolve: { type: "string", multiple: true },
      "allow-origin": { type: "string", multiple: true },
      "token-file": { type: "string" },
      "trust-proxy": { type: "string" },
      "idle-timeout": { type: "string" },
      "max-websockets-per-client": { type: "string" },
      "max-streams-per-websocket": { type: "string" },
      "max-streams": { type: "string" },
      "streams-per-second": { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

/** The caps with the flags applied, fitted below the open-files limit; or what is wrong with a flag. */
function limitsFrom(values: ReturnType<typeof parse>): RelayLimits | string {
  const limits: RelayLimits = { ...DEFAULT_RELAY_LIMITS };
  const counts: [keyof typeof values, keyof RelayLimits][] = [
    ["max-websockets-per-client", "websocketsPerClient"],
    ["max-streams-per-websocket", "streamsPerWebsocket"],
    ["max-streams", "streamsTotal"],
    ["streams-per-second", "streamsPerSecond"],
    ["idle-timeout", "idleTimeoutMs"],
  ];
  for (const [flag, key] of counts) {
    const text = values[flag];
    if (text === undefined) continue;
    if (typeof text !== "string" || !/^\d{1,7}$/.test(text) || Number(text) < 1)
      return `--${flag} ${String(text)} is not a whole number of at least 1`;
    limits[key] = key === "idleTimeoutMs" ? Number(text) * 1000 : Number(text);
  }
  if (values["streams-per-second"] !== undefined) limits.streamBurst = 2 * limits.streamsPerSecond;
  return fitToDescriptors(limits, descriptorLimit());
}

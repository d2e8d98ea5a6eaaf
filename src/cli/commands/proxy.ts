import { lookup as dnsLookup } from "node:dns/promises";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { createEventLog, toJsonLine } from "../../log";
import { messageOf, systemClock } from "../../platform";
import { DEFAULT_POLICY, loadPolicy, type Policy, policyHash } from "../../policy";
import {
  createProxy,
  DEFAULT_BODY_BUDGET_BYTES,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HEAD_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CHUNKS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  type EgressProxy,
  type ProxyOptions,
} from "../../proxy";
import { caPem, createSessionCa, createTlsTerminator, type SessionCa, tlsTunnelHook } from "../../tls";
import { parseCommandLine } from "../args";
import type { Command } from "../command";
import { lookupWithTable } from "../guarded-fetch";
import { nodeTimers } from "../node-timers";
import { socketStream } from "../proxy-socket";
import { createNodeUpstream } from "../proxy-upstream";
import { parseResolveEntries } from "../relay/check";
import { untilShutdownSignal } from "../shutdown-signal";

/**
 * `npx tab proxy`: the page's proxy core on a real socket, so a verdict can be reproduced
 * with curl and in CI. Like the page, it terminates TLS inside CONNECT with a per-session CA,
 * so SNI and Host are checked and the CLI is the TLS client upstream. One JSON
 * line per decision (proxy.decision, tls.session, tls.verdict) and per proxy note (an idle
 * connection closed) on stdout; the startup lines on stderr.
 */

const LOGGED_KINDS = new Set(["proxy.decision", "tls.session", "tls.verdict"]);

const MIB = 1024 * 1024;

const USAGE = [
  "npx tab proxy [--policy FILE] [--port 3128] [--host 127.0.0.1] [--ca-out FILE] [--cors-proxy URL]",
  "              [--head-timeout SECONDS] [--idle-timeout SECONDS] [--body-timeout SECONDS] [--upstream-timeout SECONDS]",
  "              [--max-body MIB] [--max-chunks N] [--body-budget MIB] [--max-connections N]",
  "              [--allow-private-for-tests ADDR[,ADDR]] [--resolve NAME=IP ...]",
  "",
  "  --policy FILE     a policy in YAML or JSON (default: the page's default policy)",
  "  --port N          port to listen on; 0 picks a free one (printed on stderr)",
  "  --host ADDR       address to listen on (default 127.0.0.1)",
  "  --ca-out FILE     write this session's CA certificate (PEM) to FILE, for curl --cacert",
  "  --cors-proxy URL  a CORS proxy for upstreams a browser could not read ({url} is replaced; --cors-relay is the old name)",
  `  --head-timeout S  seconds a client may take to send a request head, then 408 (default ${DEFAULT_HEAD_TIMEOUT_MS / 1000})`,
  `  --idle-timeout S  seconds a connection or CONNECT tunnel may pass no traffic, then it is closed (default ${DEFAULT_IDLE_TIMEOUT_MS / 1000})`,
  `  --body-timeout S  seconds a request body may take after its head, then 408 (default ${DEFAULT_BODY_TIMEOUT_MS / 1000})`,
  "  --upstream-timeout S",
  `                    seconds the upstream may take to answer, or between pieces of its body (default ${DEFAULT_UPSTREAM_TIMEOUT_MS / 1000})`,
  `  --max-body MIB    the largest request body, and upstream body /v0/fetch holds, then 413 (default ${DEFAULT_MAX_BODY_BYTES / MIB})`,
  `  --max-chunks N    the most chunks in one chunked request body, then 413 (default ${DEFAULT_MAX_CHUNKS})`,
  `  --body-budget MIB bytes all in-flight bodies may hold together, then 503 (default ${DEFAULT_BODY_BUDGET_BYTES / MIB})`,
  "  --max-connections N",
  `                    client connections served at once; one more is answered 503 (default ${DEFAULT_MAX_CONNECTIONS})`,
  "                    docs/limits.md lists every limit.",
  "  --allow-private-for-tests ADDR[,ADDR]",
  "                    TEST ONLY: let these private addresses (e.g. 127.0.0.1) be upstreams.",
  "                    Never use it outside tests: it reopens the SSRF hole private-address closes.",
  "  --resolve NAME=IP TEST ONLY: answer NAME with IP instead of asking DNS (repeatable), so a test",
  "                    upstream on 127.0.0.1 has a public-looking name: a private name (localhost,",
  "                    *.local, single-label…) is refused before any lookup, whatever this says.",
  "",
  "CONNECT tunnels are terminated here with a CA created for this session (a new one each",
  "start; the key never leaves the process). The client must trust it; the CLI itself is",
  "the TLS client upstream, verifying with Node's CA store (NODE_EXTRA_CA_CERTS adds to it).",
  "Clients must speak TLS 1.3 with TLS_AES_128_GCM_SHA256, over X25519 or P-256 (secp256r1).",
  "",
  "Use it with curl:",
  "  npx tab proxy --ca-out /tmp/tab-ca.pem",
  "  curl --cacert /tmp/tab-ca.pem -x http://127.0.0.1:3128 https://api.github.com/zen",
].join("\n");

export const command: Command = {
  summary: "proxy: run the allowlisting egress proxy (the page's core) on a real socket",
  usage: USAGE,
  async run(args) {
    let values: ReturnType<typeof parse>;
    try {
      values = parse(args);
    } catch (error) {
      process.stderr.write(`tab proxy: ${messageOf(error)}\n\nusage: ${USAGE}\n`);
      return 64;
    }
    const port = Number(values.port ?? "3128");
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`tab proxy: --port ${values.port} is not a port\n`);
      return 64;
    }
    const host = values.host ?? "127.0.0.1";
    type Bounds = Pick<
      ProxyOptions,
      | "headTimeoutMs"
      | "idleTimeoutMs"
      | "bodyTimeoutMs"
      | "upstreamTimeoutMs"
      | "maxBodyBytes"
      | "maxChunks"
      | "bodyBudgetBytes"
      | "maxConnections"
    >;
    const bounds: Bounds = {};
    for (const [flag, key, unit, scale] of [
      ["head-timeout", "headTimeoutMs", "seconds", 1000],
      ["idle-timeout", "idleTimeoutMs", "seconds", 1000],
      ["body-timeout", "bodyTimeoutMs", "seconds", 1000],
      ["upstream-timeout", "upstreamTimeoutMs", "seconds", 1000],
      ["max-body", "maxBodyBytes", "MiB", MIB],
      ["max-chunks", "maxChunks", "chunks", 1],
      ["body-budget", "bodyBudgetBytes", "MiB", MIB],
      ["max-connections", "maxConnections", "connections", 1],
    ] as const) {
      const text = values[flag];
      if (text === undefined) continue;
      const amount = Number(text);
      if (text.trim() === "" || !Number.isFinite(amount) || amount <= 0 || amount * scale > Number.MAX_SAFE_INTEGER) {
        process.stderr.write(`tab proxy: --${flag} ${text} is not a positive number of ${unit}\n`);
        return 64;
      }
      bounds[key] = Math.max(1, Math.round(amount * scale));
    }
    let policy: Policy;
    try {
      policy = values.policy ? loadPolicy(await readFile(values.policy, "utf8"), values.policy) : DEFAULT_POLICY;
    } catch (error) {
      process.stderr.write(`tab proxy: ${messageOf(error)}\n`);
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
    const resolve = parseResolveEntries(values.resolve ?? []);
    if ("error" in resolve) {
      process.stderr.write(`tab proxy: ${resolve.error}\n`);
      return 64;
    }
    if (resolve.size > 0)
      process.stderr.write(`tab proxy: TEST ONLY: names answered without DNS: ${[...resolve].map(([n, a]) => `${n}=${a}`).join(", ")}\n`);

    const corsProxy = values["cors-proxy"] ?? values["cors-relay"];
    let ca: SessionCa;
    try {
      ca = await createSessionCa();
      ca.prepare(policy.hosts.map((rule) => rule.host)); // the first CONNECT to each does not wait for its leaf
      if (values["ca-out"]) await writeFile(values["ca-out"], caPem(ca), { mode: 0o644 });
    } catch (error) {
      process.stderr.write(`tab proxy: cannot create or write the session CA: ${messageOf(error)}\n`);
      return 1;
    }

    const log = createEventLog();
    log.subscribe((event) => {
      if (LOGGED_KINDS.has(event.kind) || (event.kind === "note" && event.source === "proxy")) process.stdout.write(toJsonLine(event));
    });
    // The guard's own inactivity limit follows --upstream-timeout, so it never cuts first.
    const upstream = createNodeUpstream({
      policy: () => policy,
      allowPrivate,
      timeoutMs: bounds.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
      lookup: lookupWithTable(resolve, (name) => dnsLookup(name, { all: true, verbatim: true })),
    });
    let proxy: EgressProxy | null = null;
    // allowHalfOpen: a client that half-closes after its request (curl, openssl s_client) must
    // still get the reply and the TLS close_notify; by default Node would end our side too.
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
      process.stderr.write(`tab proxy: cannot listen on ${host}:${port}: ${messageOf(error)}\n`);
      return 1;
    }
    const address = server.address();
    const boundPort = typeof address === "object" && address ? address.port : port;
    const shownHost = host.includes(":") ? `[${host}]` : host;
    proxy = createProxy({
      policy: () => policy,
      fetch: upstream.fetch,
      resolveHost: upstream.resolveHost,
      // Node's own TCP and TLS to the checked address: no CORS, and the decision event says so.
      upstreamPath: () => "direct",
      clock: systemClock,
      timers: nodeTimers,
      ...bounds,
      log,
      ownHost: [`${shownHost}:${boundPort}`, `localhost:${boundPort}`],
      // Clients reach this terminator over a real socket, which can be recorded: resumption keeps
      // a fresh (EC)DHE (psk_dhe_ke only; decisions 0022 and 0024).
      tunnel: tlsTunnelHook(createTlsTerminator({ ca, log, resumeWithoutKeyExchange: false })),
      ...(corsProxy ? { corsProxy } : {}),
    });
    process.stderr.write(`tab proxy: session CA sha256 ${ca.fingerprint}${values["ca-out"] ? ` written to ${values["ca-out"]}` : ""}\n`);
    process.stderr.write(`tab proxy listening on http://${shownHost}:${boundPort} (policy sha256 ${await policyHash(policy)})\n`);

    await untilShutdownSignal();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Open keep-alive connections would hold close() forever; the process is ending.
      setTimeout(resolve, 500).unref();
    });
    return 0;
  },
};

function parse(args: string[]) {
  return parseCommandLine({
    args,
    options: {
      policy: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      "cors-proxy": { type: "string" },
      // The flag's old name, still accepted.
      "cors-relay": { type: "string" },
      "ca-out": { type: "string" },
      "allow-private-for-tests": { type: "string" },
      resolve: { type: "string", multiple: true },
      "head-timeout": { type: "string" },
      "idle-timeout": { type: "string" },
      "body-timeout": { type: "string" },
      "upstream-timeout": { type: "string" },
      "max-body": { type: "string" },
      "max-chunks": { type: "string" },
      "body-budget": { type: "string" },
      "max-connections": { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

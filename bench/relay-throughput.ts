/**
 * `npm run bench relay-throughput`: `npx tab relay` (a real process, with its checks and caps)
 * against wisp-js's own server (its CLI, `wisp-js-server`, none of our checks), on loopback, in
 * the same run and driven identically by one Wisp client (bench/_wisp-load.ts): MB/s through
 * one stream each way, MB/s in aggregate, streams opened (and answered) per second, and the
 * RSS each idle stream costs. Our relay runs with its per-client caps raised so that they are
 * not what is measured (the caps are deliberate; docs/limits.md). Goal: ≥ 0.9× wisp-js's
 * throughput. Loopback only; every loop is bounded in bytes or streams.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { dirname, join } from "node:path";
import { runRelay } from "../src/cli/relay/testing/harness";
import { PLAYGROUND_ORIGIN } from "../src/cli/relay/testing/wisp-wire";
import { withinTime } from "../src/platform";
import { type LoadConnection, loadUpstream, OP, openLoadConnection, request } from "./_wisp-load";

const MiB = 1024 * 1024;
const SCALE = Number(process.env.TAB_BENCH_RELAY_SCALE ?? 1);
const ROUNDS = 5;
const SINGLE_DOWNLOAD = Math.round(128 * MiB * SCALE);
const SINGLE_UPLOAD = Math.round(64 * MiB * SCALE);
const AGGREGATE_WEBSOCKETS = 4;
const AGGREGATE_STREAMS_PER_WEBSOCKET = 4;
const AGGREGATE_PER_STREAM = Math.round(16 * MiB * SCALE);
const OPEN_STREAMS = Math.round(2_000 * SCALE);
const OPEN_IN_FLIGHT = 32;
const IDLE_WEBSOCKETS = 10;
const IDLE_PER_WEBSOCKET = 100;
const UPLOAD_FRAME = 16 * 1024;
const GOAL = 0.9;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
/** The process's CPU time so far (user + system), in ms: what a busy machine does not distort. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime: clock ticks of 10 ms
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

interface Server {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (up) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGINT");
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
  });

async function startOurs(upstreamPort: number): Promise<Server> {
  const relay = await runRelay([
    "--allow-private-for-tests",
    "127.0.0.1",
    "--allow-ports",
    String(upstreamPort),
    "--streams-per-second",
    "100000",
    "--max-streams",
    "4000",
    "--max-streams-per-websocket",
    "1000",
    "--max-websockets-per-client",
    "64",
  ]);
  // The stream records go to stdout; the harness keeps them, which a bench must not.
  relay.child.stdout?.removeAllListeners("data");
  relay.child.stdout?.resume();
  return { name: "tab relay", url: relay.url, pid: relay.child.pid as number, stop: () => stopChild(relay.child) };
}

async function startTheirs(): Promise<Server> {
  const cli = join(
    dirname(createRequire(import.meta.url).resolve("@mercuryworkshop/wisp-js/server")),
    "..",
    "src",
    "bin",
    "server_cli.mjs",
  );
  const port = await freePort();
  const options = JSON.stringify({ allow_loopback_ips: true, allow_private_ips: true });
  const child = spawn(process.execPath, [cli, "--host", "127.0.0.1", "--port", String(port), "--logging", "NONE", "--options", options], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  await listening(port);
  return { name: "wisp-js", url: `ws://127.0.0.1:${port}/`, pid: child.pid as number, stop: () => stopChild(child) };
}

const progress = (what: string) => process.stderr.write(`  ${what}\n`);
const open = (server: Server) => openLoadConnection(server.url, PLAYGROUND_ORIGIN);

/** MB/s from the upstream to the client, through one stream. */
async function download(server: Server, port: number, bytes: number): Promise<number> {
  const connection = await open(server);
  const started = performance.now();
  const stream = connection.open(port);
  stream.send(request(OP.download, bytes));
  await stream.receivedAtLeast(bytes);
  const seconds = (performance.now() - started) / 1000;
  await connection.close();
  return bytes / MiB / seconds;
}

/** MB/s from the client to the upstream, through one stream, in 16 KiB frames (a TLS record each). */
async function upload(server: Server, port: number, bytes: number): Promise<number> {
  const connection = await open(server);
  const started = performance.now();
  const stream = connection.open(port);
  stream.send(request(OP.upload, bytes));
  const frame = Buffer.alloc(UPLOAD_FRAME, 0x62);
  for (let sent = 0; sent < bytes; sent += UPLOAD_FRAME) {
    stream.send(sent + UPLOAD_FRAME <= bytes ? frame : frame.subarray(0, bytes - sent));
    if ((sent / UPLOAD_FRAME) % 64 === 63) await stream.sent();
  }
  await stream.receivedAtLeast(1);
  const seconds = (performance.now() - started) / 1000;
  await connection.close();
  return bytes / MiB / seconds;
}

/** MB/s from the upstream to the client, in all, over several WebSockets with several streams each. */
async function aggregate(server: Server, port: number): Promise<number> {
  const connections = await Promise.all(Array.from({ length: AGGREGATE_WEBSOCKETS }, () => open(server)));
  const started = performance.now();
  await Promise.all(
    connections.flatMap((c) =>
      Array.from({ length: AGGREGATE_STREAMS_PER_WEBSOCKET }, () => {
        const stream = c.open(port);
        stream.send(request(OP.download, AGGREGATE_PER_STREAM));
        return stream.receivedAtLeast(AGGREGATE_PER_STREAM);
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(connections.map((c) => c.close()));
  return (connections.length * AGGREGATE_STREAMS_PER_WEBSOCKET * AGGREGATE_PER_STREAM) / MiB / seconds;
}

/** Streams a second, each opened, answered (one byte echoed) and closed; a few in flight at once. */
async function openRate(server: Server, port: number): Promise<number> {
  const connection = await open(server);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < OPEN_STREAMS) {
      next++;
      const stream = connection.open(port);
      stream.send(Buffer.concat([request(OP.echo), Uint8Array.of(1)]));
      await stream.receivedAtLeast(1);
      stream.close();
    }
  };
  await Promise.all(Array.from({ length: OPEN_IN_FLIGHT }, worker));
  const seconds = (performance.now() - started) / 1000;
  await connection.close();
  return OPEN_STREAMS / seconds;
}

/** Idle streams held at once (each answered once, then quiet), and the server's RSS each costs. */
async function idle(server: Server, port: number): Promise<{ held: number; kibPerStream: number }> {
  const before = rssMiB(server.pid);
  const connections: LoadConnection[] = [];
  let held = 0;
  for (let w = 0; w < IDLE_WEBSOCKETS; w++) {
    const connection = await open(server);
    connections.push(connection);
    const streams = Array.from({ length: IDLE_PER_WEBSOCKET }, () => {
      const stream = connection.open(port);
      stream.send(Buffer.concat([request(OP.echo), Uint8Array.of(1)]));
      return stream.receivedAtLeast(1).then(
        () => held++,
        () => undefined,
      );
    });
    await Promise.all(streams);
  }
  await sleep(1_000);
  const after = rssMiB(server.pid);
  await Promise.all(connections.map((c) => c.close()));
  return { held, kibPerStream: ((after - before) * 1024) / Math.max(1, held) };
}

const upstream = await loadUpstream();
const servers = [await startOurs(upstream.port), await startTheirs()];
const [ours, theirs] = servers as [Server, Server];

type Measure = "download" | "upload" | "aggregate" | "opens";
/** Per measure: the rate each round, and the server's CPU ms per unit (MiB, or stream) each round. */
type Figures = Record<Measure, { rate: number[]; cpu: number[] }>;
const figures = new Map<Server, Figures>(
  servers.map((s) => [
    s,
    { download: { rate: [], cpu: [] }, upload: { rate: [], cpu: [] }, aggregate: { rate: [], cpu: [] }, opens: { rate: [], cpu: [] } },
  ]),
);
const AGGREGATE_MIB = (AGGREGATE_WEBSOCKETS * AGGREGATE_STREAMS_PER_WEBSOCKET * AGGREGATE_PER_STREAM) / MiB;
const units: Record<Measure, number> = {
  download: SINGLE_DOWNLOAD / MiB,
  upload: SINGLE_UPLOAD / MiB,
  aggregate: AGGREGATE_MIB,
  opens: OPEN_STREAMS,
};
const failures: string[] = [];
/**
 * How long one measurement may take: seconds at most on loopback. A server that stops sending
 * mid-stream (neither the bytes nor a CLOSE: wisp-js once did, in an aggregate round) fails
 * that measurement instead of holding the bench forever.
 */
const MEASURE_LIMIT_MS = 120_000 * Math.max(1, SCALE);
async function measure(server: Server, key: Measure, run: () => Promise<number>): Promise<void> {
  const f = (figures.get(server) as Figures)[key];
  const cpu = cpuMs(server.pid);
  const rate = await withinTime(run(), MEASURE_LIMIT_MS, `${server.name}'s ${key} round`).catch((error: unknown) => {
    failures.push(`${server.name}, ${key}: ${(error as Error).message}`);
    return 0;
  });
  f.rate.push(rate);
  f.cpu.push((cpuMs(server.pid) - cpu) / units[key]);
}
let failed = false;
try {
  // Warm both up (JIT, buffers) before anything counts.
  for (const server of servers) await withinTime(download(server, upstream.port, 8 * MiB), MEASURE_LIMIT_MS, `${server.name}'s warm-up`);
  // Rounds alternate between the two, so a busy machine hurts both alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
      progress(`${server.name}: round ${round + 1} of ${ROUNDS}`);
      await measure(server, "download", () => download(server, upstream.port, SINGLE_DOWNLOAD));
      await measure(server, "upload", () => upload(server, upstream.port, SINGLE_UPLOAD));
      await measure(server, "aggregate", () => aggregate(server, upstream.port));
      await measure(server, "opens", () => openRate(server, upstream.port));
    }
  }

  // Idle streams last, on servers whose heaps the rounds have grown: what one more stream costs.
  const idleFigures = new Map<Server, { held: number; kibPerStream: number }>();
  for (const server of servers) {
    progress(`${server.name}: idle streams`);
    const held = await withinTime(idle(server, upstream.port), MEASURE_LIMIT_MS, `${server.name}'s idle streams`).catch(
      (error: unknown) => {
        failures.push(`${server.name}, idle streams: ${(error as Error).message}`);
        return { held: 0, kibPerStream: 0 };
      },
    );
    idleFigures.set(server, held);
  }
  const row = (label: string, ...cells: string[]) => console.log(`${label.padEnd(58)}${cells.map((c) => c.padStart(11)).join("")}`);
  row(`loopback, median of ${ROUNDS} rounds`, ours.name, theirs.name, "ratio", "CPU ours", "CPU theirs", "ratio");
  const rows: [string, Measure, string, string][] = [
    [`one stream, upstream to client (${SINGLE_DOWNLOAD / MiB} MiB)`, "download", "MB/s", "ms/MiB"],
    [`one stream, client to upstream (${SINGLE_UPLOAD / MiB} MiB, 16 KiB frames)`, "upload", "MB/s", "ms/MiB"],
    [
      `aggregate, ${AGGREGATE_WEBSOCKETS} WebSockets x ${AGGREGATE_STREAMS_PER_WEBSOCKET} streams x ${AGGREGATE_PER_STREAM / MiB} MiB`,
      "aggregate",
      "MB/s",
      "ms/MiB",
    ],
    [`streams opened, answered, closed (${OPEN_STREAMS}, ${OPEN_IN_FLIGHT} in flight)`, "opens", "/s", "ms/stream"],
  ];
  let worst = Number.POSITIVE_INFINITY;
  for (const [label, key, unit, cpuUnit] of rows) {
    const [a, b] = [ours, theirs].map((s) => (figures.get(s) as Figures)[key]) as [Figures[Measure], Figures[Measure]];
    const [ra, rb, ca, cb] = [median(a.rate), median(b.rate), median(a.cpu), median(b.cpu)];
    if (key !== "opens") worst = Math.min(worst, ra / rb);
    row(
      `${label} ${unit}, ${cpuUnit}`,
      ra.toFixed(0),
      rb.toFixed(0),
      `${(ra / rb).toFixed(2)}x`,
      ca.toFixed(2),
      cb.toFixed(2),
      `${(ca / cb).toFixed(2)}x`,
    );
  }
  const oi = idleFigures.get(ours) as { held: number; kibPerStream: number };
  const ti = idleFigures.get(theirs) as { held: number; kibPerStream: number };
  row("idle streams held at once", String(oi.held), String(ti.held));
  row(
    "RSS per idle stream, KiB",
    oi.kibPerStream.toFixed(1),
    ti.kibPerStream.toFixed(1),
    `${(oi.kibPerStream / ti.kibPerStream).toFixed(2)}x`,
  );
  console.log(`goal: throughput >= ${GOAL}x wisp-js's (worst of the three: ${worst.toFixed(2)}x): ${worst >= GOAL ? "met" : "MISSED"}`);
  console.log("(the machine's other load moves MB/s from run to run; CPU per MiB is the steadier comparison)");
  for (const failure of failures) console.log(`failed: ${failure}`);
  failed = oi.held !== IDLE_WEBSOCKETS * IDLE_PER_WEBSOCKET || failures.length > 0;
} finally {
  for (const server of servers) await server.stop();
  upstream.close();
}
process.exit(failed ? 1 : 0);

/**
 * `npm run bench relay`: the second outside test's floods against `npx tab relay` (a real
 * process) on loopback, each bounded in frames and seconds, each against a fresh relay. For
 * each: the relay's peak RSS (VmHWM), whether it is alive, and whether a new client's stream
 * is served after. Goal: under 300 MiB, alive, serving. A relay that is gone or no longer
 * serves after a flood is a failure said in words (with the end of its stderr) and exit 1, as
 * are oversized messages, which once ended the process (issue 52). Loopback only.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { MAX_MESSAGE_BYTES } from "../src/cli/relay/limits";
import { echoUpstream, type RunningRelay, runRelay } from "../src/cli/relay/testing/harness";
import { openWire, WISP, type WireConnection, wispFrame } from "../src/cli/relay/testing/wisp-wire";

const TARGET_MIB = 300;
const FLOOD_SECONDS = Number(process.env.TAB_BENCH_RELAY_SECONDS ?? 10);

async function listen(handler: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    handler(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

const kib = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function serves(relay: RunningRelay, echoPort: number): Promise<boolean> {
  const attempt = (async () => {
    const connection = await openWire(relay.url);
    const stream = connection.open("127.0.0.1", echoPort);
    stream.send(Buffer.from("hello"));
    await stream.receivedAtLeast(5);
    connection.close();
    return true;
  })().catch(() => false);
  return Promise.race([attempt, sleep(10_000).then(() => false)]);
}

interface Flood {
  name: string;
  run(relay: RunningRelay, ports: Ports): Promise<string>;
}
interface Ports {
  sink: number;
  stalled: number;
  firehose: number;
  echo: number;
}

const floods: Flood[] = [
  {
    name: "1-byte DATA frames (3.3 M at most)",
    async run(relay, ports) {
      const connection = await openWire(relay.url);
      const until = performance.now() + FLOOD_SECONDS * 1000;
      let frames = 0;
      let throttled = 0;
      while (frames < 3_300_000 && performance.now() < until) {
        const stream = connection.open("127.0.0.1", ports.sink);
        connection.flood(stream, 100_000, Uint8Array.of(1));
        frames += 100_000;
        const reason = await Promise.race([stream.closed, sleep(2_000).then(() => 0)]);
        if (reason === 0x49) throttled++;
        await drain(connection);
      }
      connection.close();
      return `${frames} frames, ${throttled} streams throttled`;
    },
  },
  {
    name: "ignoring CONTINUE, destination reads nothing (16 KiB frames, 2.7 GB at most)",
    async run(relay, ports) {
      const connection = await openWire(relay.url);
      const until = performance.now() + FLOOD_SECONDS * 1000;
      let bytes = 0;
      let throttled = 0;
      while (bytes < 2_700_000_000 && performance.now() < until) {
        const stream = connection.open("127.0.0.1", ports.stalled);
        connection.flood(stream, 2_000, Buffer.alloc(16 * 1024, 1));
        bytes += 2_000 * 16 * 1024;
        const reason = await Promise.race([stream.closed, sleep(5_000).then(() => 0)]);
        if (reason === 0x49) throttled++;
        await drain(connection);
      }
      connection.close();
      return `${(bytes / 2 ** 20).toFixed(0)} MiB sent, ${throttled} streams throttled`;
    },
  },
  {
    name: "10 WebSockets x 4 streams that never read, destination writes",
    async run(relay, ports) {
      const connections = await Promise.all(Array.from({ length: 10 }, () => openWire(relay.url)));
      for (const c of connections) {
        for (let i = 0; i < 4; i++) c.open("127.0.0.1", ports.firehose);
        c.stopReading();
      }
      await sleep(FLOOD_SECONDS * 1000);
      for (const c of connections) c.close();
      return "40 streams held";
    },
  },
  {
    name: "1 100 CONNECTs on one WebSocket",
    async run(relay, ports) {
      const connection = await openWire(relay.url);
      const streams = connection.openMany("127.0.0.1", ports.sink, 1_100);
      const reasons = await Promise.all(streams.map((s) => Promise.race([s.closed, sleep(3_000).then(() => 0)])));
      const throttled = reasons.filter((r) => r === 0x49).length;
      const open = reasons.filter((r) => r === 0).length;
      const result = `${throttled} throttled, ${open} open`;
      connection.close();
      return result;
    },
  },
  {
    name: "1 MiB messages, past the maximum, each on a new WebSocket (500 at most)",
    async run(relay, ports) {
      const until = performance.now() + FLOOD_SECONDS * 1000;
      const message = wispFrame(WISP.DATA, 1, Buffer.alloc(1024 * 1024 - 5, 1));
      const codes = new Map<string, number>();
      let sent = 0;
      while (sent < 500 && performance.now() < until) {
        const connection = await openWire(relay.url);
        connection.open("127.0.0.1", ports.sink);
        connection.sendMessage(message);
        sent++;
        const code = String(await Promise.race([connection.closeCode, sleep(5_000).then(() => "no close")]));
        codes.set(code, (codes.get(code) ?? 0) + 1);
        connection.close();
      }
      return `${sent} messages of 1 MiB (the maximum is ${MAX_MESSAGE_BYTES / 1024} KiB); closed: ${[...codes].map(([c, n]) => `${n} x ${c}`).join(", ")}`;
    },
  },
  {
    name: "pings from 10 WebSockets that never read (200 000 each)",
    async run(relay) {
      const connections = await Promise.all(Array.from({ length: 10 }, () => openWire(relay.url)));
      for (const c of connections) {
        c.stopReading();
        c.sendMessages(Buffer.alloc(125, 0x70), 200_000, 9);
      }
      const cut = await Promise.all(
        connections.map((c) => Promise.race([c.ended.then(() => true), sleep(FLOOD_SECONDS * 1000).then(() => false)])),
      );
      for (const c of connections) c.close();
      return `${cut.filter(Boolean).length} of 10 cut`;
    },
  },
];

/** Whether the relay process has exited: what it exited with, or null while it runs. */
async function gone(relay: RunningRelay): Promise<string | null> {
  if (relay.child.exitCode !== null || relay.child.signalCode !== null) return `exited (${relay.child.exitCode ?? relay.child.signalCode})`;
  return Promise.race([relay.exited.then((code) => `exited (${code ?? relay.child.signalCode})`), sleep(200).then(() => null)]);
}

/** Waits until the client's own socket has written what it queued (the flood is bounded by the client too). */
async function drain(connection: WireConnection): Promise<void> {
  while (connection.socket.writableLength > 0 && !connection.socket.destroyed) await sleep(20);
}

const sink = await listen((socket) => socket.resume());
const stalledSockets: Socket[] = [];
const stalled = await listen((socket) => {
  socket.pause();
  stalledSockets.push(socket);
});
const chunk = Buffer.alloc(64 * 1024, 7);
const firehose = await listen((socket) => {
  const pump = () => {
    while (!socket.destroyed && socket.write(chunk));
  };
  socket.on("drain", pump);
  pump();
});
const echo = await echoUpstream();
const ports: Ports = { sink: sink.port, stalled: stalled.port, firehose: firehose.port, echo: echo.port };

console.log(`${"flood".padEnd(80)}${"RSS idle".padEnd(10)}${"RSS peak".padEnd(10)}${"alive".padEnd(7)}${"serves".padEnd(8)}result`);
let ok = true;
for (const flood of floods) {
  const relay = await runRelay(["--allow-private-for-tests", "127.0.0.1", "--allow-ports", Object.values(ports).join(",")]);
  const pid = relay.child.pid as number;
  const idle = kib(pid, "VmRSS");
  let note: string;
  try {
    note = await flood.run(relay, ports);
  } catch (error) {
    note = `client error: ${(error as Error).message}`;
  }
  const exited = await gone(relay);
  const alive = exited === null;
  const peak = alive ? kib(pid, "VmHWM") : Number.NaN;
  const serving = alive && (await serves(relay, echo.port));
  const good = alive && serving && peak < TARGET_MIB;
  ok &&= good;
  console.log(
    `${flood.name.padEnd(80)}${idle.toFixed(0).padEnd(10)}${peak.toFixed(0).padEnd(10)}${String(alive).padEnd(7)}${String(serving).padEnd(8)}${note}${good ? "" : "  <-- MISSED"}`,
  );
  if (!alive || !serving)
    console.error(
      `FAILED: after "${flood.name}" the relay ${alive ? "is running but did not serve a new client within 10 s" : `is gone: it ${exited}`}; the end of its stderr:\n${relay.stderr().slice(-2_000)}`,
    );
  relay.child.kill("SIGINT");
  await relay.exited;
  for (const s of stalledSockets.splice(0)) s.destroy();
}
console.log(`goal: peak RSS < ${TARGET_MIB} MiB, alive, serving a new client after: ${ok ? "met" : "MISSED"}`);
for (const s of [sink.server, stalled.server, firehose.server, echo.server]) s.close();
process.exit(ok ? 0 : 1);

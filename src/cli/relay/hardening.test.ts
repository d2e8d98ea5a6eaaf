import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EchoUpstream, echoUpstream, type RunningRelay, runRelay } from "./testing/harness";
import { CLOSE_REASON, openWire, UpgradeRefused, type WireConnection, type WireStream } from "./testing/wisp-wire";

// The second outside test's findings, each reproduced by a bounded client on loopback against
// `npx tab relay` as a real process. Destinations are local servers reached only under the
// test-only flags; every flood is a fixed number of frames.

/** A destination that accepts and then neither reads nor writes: what it is sent backs up. */
async function stalledUpstream(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    socket.pause();
    socket.on("error", () => undefined);
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port, sockets };
}

/** A destination that writes as fast as it may, for ever: a client that never reads backs it up. */
async function firehoseUpstream(): Promise<{ server: Server; port: number; written: () => number }> {
  let written = 0;
  const chunk = Buffer.alloc(64 * 1024, 7);
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    const pump = () => {
      while (!socket.destroyed && socket.write(chunk)) written += chunk.length;
      if (!socket.destroyed) written += chunk.length;
    };
    socket.on("drain", pump);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port, written: () => written };
}

/** A destination that reads everything, in bursts with pauses between, and counts it. */
async function burstyUpstream(): Promise<{ server: Server; port: number; received: number[] }> {
  const received: number[] = [];
  const pauseEvery = 4 * 1024 * 1024;
  const server = createServer((socket) => {
    const index = received.push(0) - 1;
    let total = 0;
    socket.on("error", () => undefined);
    socket.on("data", (data: Buffer) => {
      const before = total;
      total += data.length;
      received[index] = total;
      // After every 4 MiB the destination stops reading for a moment: the relay's queue grows.
      if (Math.floor(before / pauseEvery) !== Math.floor(total / pauseEvery)) {
        socket.pause();
        setTimeout(() => socket.resume(), 30);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port, received };
}

/**
 * Sends `frames` DATA frames as a Wisp client does: never more than the last CONTINUE it read
 * allows (CONTINUE is an absolute count, from when it is read), as fast as that allows.
 */
async function sendKeepingToContinue(connection: WireConnection, stream: WireStream, frames: number, payload: Uint8Array): Promise<void> {
  let credit = connection.granted;
  let read = 0;
  for (let sent = 0; sent < frames; ) {
    if (stream.continues.length > read) {
      read = stream.continues.length;
      credit = stream.continues[read - 1] ?? 0;
    }
    if (credit === 0) {
      const outcome = await Promise.race([stream.closed, new Promise<null>((r) => setImmediate(() => r(null)))]);
      if (outcome !== null) throw new Error(`the stream was closed (${outcome}) after ${sent} of ${frames} frames`);
      continue;
    }
    stream.send(payload);
    sent++;
    credit--;
  }
}

let echo: EchoUpstream;
let stalled: Awaited<ReturnType<typeof stalledUpstream>>;
let bursty: Awaited<ReturnType<typeof burstyUpstream>>;
let firehose: Awaited<ReturnType<typeof firehoseUpstream>>;
let relay: RunningRelay;
let tokenRelay: RunningRelay;
/** Tight caps of its own, so that other tests' streams and WebSockets do not count. */
let capped: RunningRelay;
const TOKEN = "test-token-0123456789abcdef";

beforeAll(async () => {
  echo = await echoUpstream();
  stalled = await stalledUpstream();
  bursty = await burstyUpstream();
  firehose = await firehoseUpstream();
  relay = await runRelay([
    "--allow-private-for-tests",
    "127.0.0.1",
    "--allow-ports",
    [echo.port, stalled.port, firehose.port, bursty.port].join(","),
    "--allow-origin",
    "https://tab.example.org",
    "--resolve",
    "intranet-db.example=10.1.2.3",
    "--max-streams-per-websocket",
    "8",
    "--idle-timeout",
    "2",
    "--trust-proxy",
    "127.0.0.1",
  ]);
  capped = await runRelay([
    "--allow-private-for-tests",
    "127.0.0.1",
    "--allow-ports",
    String(echo.port),
    "--streams-per-second",
    "1",
    "--max-websockets-per-client",
    "3",
  ]);
  const dir = mkdtempSync(join(tmpdir(), "tab-relay-token-"));
  writeFileSync(join(dir, "token"), `${TOKEN}\n`);
  tokenRelay = await runRelay([
    "--allow-private-for-tests",
    "127.0.0.1",
    "--allow-ports",
    String(echo.port),
    "--token-file",
    join(dir, "token"),
  ]);
}, 30_000);

afterAll(() => {
  relay?.child.kill("SIGINT");
  tokenRelay?.child.kill("SIGINT");
  capped?.child.kill("SIGINT");
  for (const server of [echo?.server, stalled?.server, firehose?.server, bursty?.server]) server?.close();
  for (const socket of stalled?.sockets ?? []) socket.destroy();
});

/** The relay is still serving: a new client's stream echoes. */
async function stillServes(url = relay.url): Promise<void> {
  const connection = await openWire(url);
  const stream = connection.open("127.0.0.1", echo.port);
  stream.send(Buffer.from("still here"));
  expect((await stream.receivedAtLeast(10)).toString()).toBe("still here");
  connection.close();
}

describe("the relay is not an open proxy", () => {
  it.each([
    ["another site's origin", "https://evil.example"],
    ["Origin: null", "null"],
    ["no Origin at all", null],
    ["a look-alike of 127.0.0.1", "http://127.0.0.1.evil.example"],
    ["a look-alike of localhost", "http://localhost.evil.example:4173"],
    ["https on loopback (not the playground's scheme)", "https://127.0.0.1:4173"],
  ])("refuses %s with HTTP 403 before the upgrade, and logs one refused line", async (_label, origin) => {
    const before = relay.records().filter((r) => r.kind === "relay.refused").length;
    const refused = await openWire(relay.url, { origin }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect((refused as UpgradeRefused).status).toBe(403);
    const line = await relay.record((r) => r.kind === "relay.refused" && r.origin === origin);
    expect(line).toMatchObject({ status: 403, code: "endpoint-not-allowed" });
    expect(relay.records().filter((r) => r.kind === "relay.refused")).toHaveLength(before + 1);
  });

  it.each([
    ["http://127.0.0.1 on any port", "http://127.0.0.1:5173"],
    ["http://localhost on any port", "http://localhost:8080"],
    ["an --allow-origin origin", "https://tab.example.org"],
  ])("admits %s", async (_label, origin) => {
    const connection = await openWire(relay.url, { origin });
    expect(connection.granted).toBe(128);
    connection.close();
  });

  it("requires the token in the relay URL when started with --token-file (401 without it or with another)", async () => {
    for (const url of [tokenRelay.url, `${tokenRelay.url}?token=wrong-token-000000000`]) {
      const refused = await openWire(url).catch((error: unknown) => error);
      expect((refused as UpgradeRefused).status).toBe(401);
    }
    await stillServes(`${tokenRelay.url}?token=${TOKEN}`);
  });
});

describe("a shared relay holds against one client", () => {
  it("a client that ignores CONTINUE is closed with a throttled reason, and the relay serves a new client after", async () => {
    const connection = await openWire(relay.url);
    const stream = connection.open("127.0.0.1", stalled.port);
    // 1 000 frames of 16 KiB (16 MiB) at a destination that reads nothing, past the grant of 128.
    connection.flood(stream, 1000, Buffer.alloc(16 * 1024, 1));
    expect(await stream.closed).toBe(CLOSE_REASON.ConnThrottled);
    const record = await relay.record((r) => r.kind === "relay.stream" && r.port === stalled.port && r.code === "too-large");
    expect(record).toMatchObject({ refused: true });
    expect(String(record.why)).toMatch(/CONTINUE grant of 128|queued bytes/);
    connection.close();
    await stillServes();
  });

  it("a client that keeps to every CONTINUE it reads is not throttled, however fast it sends to a destination that pauses", async () => {
    // A grant sent before the client used the last one crosses its frames on a fast link: its
    // frames then queue past any budget without it breaking a grant (stream.ts, grantIfDue).
    const frame = Buffer.alloc(16 * 1024, 3);
    const frames = 4096; // 64 MiB
    for (let round = 0; round < 3; round++) {
      const connection = await openWire(relay.url);
      const stream = connection.open("127.0.0.1", bursty.port);
      const index = bursty.received.length;
      await sendKeepingToContinue(connection, stream, frames, frame);
      await expect.poll(() => bursty.received[index], { timeout: 30_000 }).toBe(frames * frame.length);
      connection.close();
    }
    const throttled = relay.records().filter((r) => r.kind === "relay.stream" && r.port === bursty.port && r.code === "too-large");
    expect(throttled).toEqual([]);
  }, 90_000);

  it("a flood of 1-byte DATA frames is charged per frame, not per byte, and closed with a throttled reason", async () => {
    const connection = await openWire(relay.url);
    const stream = connection.open("127.0.0.1", stalled.port);
    const before = relay.records().length;
    connection.flood(stream, 100_000, Uint8Array.of(1));
    expect(await stream.closed).toBe(CLOSE_REASON.ConnThrottled);
    const later = () => relay.records().slice(before);
    await relay.record(() => later().some((r) => r.code === "too-large"));
    const record = later().find((r) => r.code === "too-large") ?? {};
    expect(String(record.why)).toContain("frames the destination has not taken");
    connection.close();
    await stillServes();
  });

  it("a client that never reads pauses the destination, and its stream is closed when idle", async () => {
    const connection = await openWire(relay.url);
    const stream = connection.open("127.0.0.1", firehose.port);
    await stream.receivedAtLeast(1);
    connection.stopReading();
    // The destination is paused: what it managed to write stops growing, far below what it would send.
    const record = await relay.record((r) => r.kind === "relay.stream" && r.port === firehose.port && r.code === "request-timeout");
    expect(String(record.why)).toContain("no traffic either way");
    const bytes = record.bytes as { fromUpstream: number };
    expect(bytes.fromUpstream).toBeLessThan(64 * 1024 * 1024);
    connection.close();
    await stillServes();
  });

  it("closes an idle stream with TransferTimeout", async () => {
    const connection = await openWire(relay.url);
    const stream = connection.open("127.0.0.1", stalled.port);
    expect(await stream.closed).toBe(CLOSE_REASON.TransferTimeout);
    connection.close();
  });

  it("caps streams per WebSocket: past the cap a CONNECT is closed throttled without a connection", async () => {
    const connection = await openWire(relay.url);
    const before = echo.connections();
    const streams = connection.openMany("127.0.0.1", echo.port, 40);
    const reasons = await Promise.all(streams.slice(8).map((s) => s.closed));
    expect(new Set(reasons)).toEqual(new Set([CLOSE_REASON.ConnThrottled]));
    const record = await relay.record((r) => r.kind === "relay.stream" && String(r.why).includes("streams open (at most 8)"));
    expect(record).toMatchObject({ refused: true, code: "too-many-connections", address: null });
    // The first eight were served; none of the rest reached the destination.
    for (const s of streams.slice(0, 8)) s.send(Buffer.from("x"));
    await Promise.all(streams.slice(0, 8).map((s) => s.receivedAtLeast(1)));
    expect(echo.connections() - before).toBe(8);
    connection.close();
  });

  it("caps streams opened per second per client: a burst past it is closed throttled", async () => {
    // At 1 a second with a burst of 2, the third of three CONNECTs sent at once is past it.
    const connection = await openWire(capped.url);
    const streams = connection.openMany("127.0.0.1", echo.port, 3);
    expect(await streams[2]?.closed).toBe(CLOSE_REASON.ConnThrottled);
    const record = await capped.record((r) => String(r.why).includes("opened streams faster than 1 a second"));
    expect(record).toMatchObject({ refused: true, code: "too-many-connections", address: null });
    connection.close();
  });

  it("caps WebSockets per client address: past the cap the upgrade gets 429, and a closed one frees its place", async () => {
    const held = await Promise.all([1, 2, 3].map(() => openWire(capped.url)));
    const refused = await openWire(capped.url).catch((error: unknown) => error);
    expect((refused as UpgradeRefused).status).toBe(429);
    expect(await capped.record((r) => r.kind === "relay.refused" && r.status === 429)).toMatchObject({ code: "too-many-connections" });
    held[0]?.close();
    let again: Awaited<ReturnType<typeof openWire>> | null = null;
    for (let tries = 0; tries < 50 && again === null; tries++) again = await openWire(capped.url).catch(() => null);
    expect(again).not.toBeNull();
    for (const c of [...held, again]) c?.close();
  });

  it("names the client from X-Forwarded-For only when the peer is a trusted proxy", async () => {
    const connection = await openWire(relay.url, { headers: { "X-Forwarded-For": "203.0.113.9, 198.51.100.7" } });
    const stream = connection.open("127.0.0.1", echo.port);
    stream.close();
    const record = await relay.record((r) => r.kind === "relay.stream" && r.client === "198.51.100.7");
    expect(record).toMatchObject({ client: "198.51.100.7" });
    connection.close();
  });

  it("answers a name resolving to a private address and a name that does not resolve with the same close reason; the log tells them apart", async () => {
    const connection = await openWire(relay.url);
    const privateName = connection.open("intranet-db.example", 443);
    const unknownName = connection.open("nosuch.invalid", 443);
    const [a, b] = await Promise.all([privateName.closed, unknownName.closed]);
    expect(a).toBe(CLOSE_REASON.HostBlocked);
    expect(b).toBe(a);
    expect(await relay.record((r) => r.name === "intranet-db.example")).toMatchObject({ code: "private-address" });
    expect(await relay.record((r) => r.name === "nosuch.invalid")).toMatchObject({ code: "upstream-error" });
    connection.close();
  });
});

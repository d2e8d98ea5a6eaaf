import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_MESSAGE_BYTES } from "./limits";
import { type EchoUpstream, echoUpstream, type RunningRelay, runRelay } from "./testing/harness";
import {
  CLOSE_REASON,
  ClosedBeforeReady,
  connectPayload,
  openWire,
  PLAYGROUND_ORIGIN,
  WISP,
  type WireConnection,
  type WireOptions,
  wispFrame,
  wsFrame,
} from "./testing/wisp-wire";

// Issue 52: hostile Wisp clients against `npx tab relay` as a real process, on loopback, each
// case bounded (a fixed number of frames, a time limit per test). After each, the same WebSocket
// (if the case left it open) and a new client must get an answer; at the end, the process must
// still be alive. A message past the maximum once ended the process: ws emitted 'error' on a
// WebSocket with no listener.

/** Each case's time limit: every wait below ends with an answer or this. */
const CASE_MS = 15_000;

let echo: EchoUpstream;
let relay: RunningRelay;
/** A destination that resets each connection once it has read something. */
let resetting: { server: Server; port: number };
/** A port on 127.0.0.1 where nothing listens. */
let closedPort: number;

async function listen(handler: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    handler(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

beforeAll(async () => {
  echo = await echoUpstream();
  resetting = await listen((socket) => socket.once("data", () => socket.resetAndDestroy()));
  const unused = await listen(() => undefined);
  closedPort = unused.port;
  await new Promise((resolve) => unused.server.close(resolve));
  relay = await runRelay([
    "--allow-private-for-tests",
    "127.0.0.1",
    "--allow-ports",
    [echo.port, resetting.port, closedPort].join(","),
    // A non-ASCII name that reaches the echo destination without DNS (a 1-byte name is a single
    // label, private by convention: refused before any mapping or DNS).
    "--resolve",
    "é.example=127.0.0.1",
    // The series opens streams faster than a page would; the rate cap is not under test here.
    "--streams-per-second",
    "100000",
  ]);
}, 30_000);

afterAll(() => {
  relay?.child.kill("SIGINT");
  echo?.server.close();
  resetting?.server.close();
});

/** The connection still serves: a new stream on it echoes. */
async function answers(connection: WireConnection, host: string = "127.0.0.1"): Promise<void> {
  const stream = connection.open(host, echo.port);
  stream.send(Buffer.from("answer"));
  expect((await stream.receivedAtLeast(6)).toString()).toBe("answer");
  stream.close();
}

/** A new client is served. */
async function newClientServed(options: WireOptions = {}): Promise<void> {
  const connection = await openWire(relay.url, options);
  await answers(connection);
  connection.close();
}

/** The `relay.closed` lines printed since `before` records. */
function closedLines(before: number): Record<string, unknown>[] {
  return relay
    .records()
    .slice(before)
    .filter((r) => r.kind === "relay.closed");
}

/** Sends `send` on a fresh client; expects its WebSocket closed with `status`, one line, and a bystander and a new client served. */
async function closesOnlyItsWebSocket(status: number, code: string, send: (connection: WireConnection) => void): Promise<void> {
  const bystander = await openWire(relay.url);
  const before = relay.records().length;
  const connection = await openWire(relay.url);
  send(connection);
  expect(await connection.closeCode).toBe(status);
  await expect.poll(() => closedLines(before).length).toBe(1);
  expect(closedLines(before)[0]).toMatchObject({ status, code });
  await answers(bystander);
  bystander.close();
  await newClientServed();
  expect(closedLines(before)).toHaveLength(1);
}

/** One WebSocket message of exactly `bytes` bytes: a DATA frame for `streamId`. */
function dataMessage(streamId: number, bytes: number): Buffer {
  return wispFrame(WISP.DATA, streamId, Buffer.alloc(bytes - 5, 0x61));
}

/** Sends `request` on a bare TCP connection; resolves with what the relay answered before it closed (or 5 s). */
async function rawAnswer(request: string): Promise<string> {
  const url = new URL(relay.url);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  socket.on("error", () => undefined);
  let answer = "";
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString("latin1");
  });
  socket.write(request);
  await Promise.race([new Promise((resolve) => socket.once("close", resolve)), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  socket.destroy();
  return answer;
}

describe("an upgrade the WebSocket server cannot accept gets an HTTP error, and the relay goes on", () => {
  const upgrade = (lines: string[]) =>
    `${["GET / HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade", `Origin: ${PLAYGROUND_ORIGIN}`, ...lines].join("\r\n")}\r\n\r\n`;
  it.each([
    ["no Sec-WebSocket-Key", 400, upgrade(["Sec-WebSocket-Version: 13"])],
    ["a Sec-WebSocket-Key that is not 16 bytes", 400, upgrade(["Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: c2hvcnQ="])],
    ["WebSocket version 7 (ws speaks 8 and 13)", 400, upgrade(["Sec-WebSocket-Version: 7", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="])],
    ["bytes that are not HTTP", 400, "\u0000\u00ff not http at all\r\n\r\n"],
  ])(
    "%s: HTTP %i",
    async (_label, status, request) => {
      expect(await rawAnswer(request)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      await newClientServed();
    },
    CASE_MS,
  );
});

describe("a message past the maximum size closes only its own WebSocket", () => {
  it(
    `a DATA message of the maximum plus one byte (${MAX_MESSAGE_BYTES + 1}) on an open stream: close 1009, one line, the relay goes on`,
    async () => {
      await closesOnlyItsWebSocket(1009, "too-large", (connection) => {
        const stream = connection.open("127.0.0.1", echo.port);
        connection.sendMessage(dataMessage(stream.id, MAX_MESSAGE_BYTES + 1));
      });
    },
    CASE_MS,
  );

  it(
    "a 1 MiB DATA message on an open stream: close 1009",
    async () => {
      await closesOnlyItsWebSocket(1009, "too-large", (connection) => {
        const stream = connection.open("127.0.0.1", echo.port);
        connection.sendMessage(dataMessage(stream.id, 1024 * 1024));
      });
    },
    CASE_MS,
  );

  it(
    "a CONNECT whose host name is 1 MiB: close 1009",
    async () => {
      await closesOnlyItsWebSocket(1009, "too-large", (connection) => {
        connection.sendFrame(WISP.CONNECT, 1, connectPayload("a".repeat(1024 * 1024), 443));
      });
    },
    CASE_MS,
  );

  it(
    "a message past the maximum in fragments, each under it: close 1009",
    async () => {
      await closesOnlyItsWebSocket(1009, "too-large", (connection) => {
        const half = Buffer.alloc(MAX_MESSAGE_BYTES / 2 + 1, 0x62);
        connection.socket.write(wsFrame(half, 0x02, false)); // binary, not final
        connection.socket.write(wsFrame(half, 0x00)); // continuation, final
      });
    },
    CASE_MS,
  );

  it(
    "messages of exactly the maximum and of one byte under it are relayed",
    async () => {
      const connection = await openWire(relay.url);
      const stream = connection.open("127.0.0.1", echo.port);
      const sizes = [MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES - 1];
      for (const size of sizes) connection.sendMessage(dataMessage(stream.id, size));
      const total = sizes.reduce((sum, size) => sum + size - 5, 0);
      expect((await stream.receivedAtLeast(total)).length).toBe(total);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );
});

describe("a WebSocket frame breaking RFC 6455 closes only its own WebSocket", () => {
  it(
    "a text message that is not UTF-8: close 1007",
    async () => {
      await closesOnlyItsWebSocket(1007, "malformed-frame", (connection) => connection.sendMessage(Uint8Array.of(0x61, 0xff, 0xfe), 1));
    },
    CASE_MS,
  );

  it(
    "an unmasked frame from the client: close 1002",
    async () => {
      await closesOnlyItsWebSocket(1002, "malformed-frame", (connection) => {
        const payload = wispFrame(WISP.DATA, 1, Buffer.from("x"));
        connection.socket.write(Buffer.concat([Uint8Array.of(0x82, payload.length), payload]));
      });
    },
    CASE_MS,
  );

  it(
    "a reserved opcode: close 1002",
    async () => {
      await closesOnlyItsWebSocket(1002, "malformed-frame", (connection) => connection.socket.write(wsFrame(Buffer.from("x"), 0x03)));
    },
    CASE_MS,
  );
});

describe("a CONNECT's host name, whatever its bytes, gets a CLOSE and the WebSocket goes on", () => {
  it.each([
    ["empty", Buffer.alloc(0), CLOSE_REASON.HostBlocked],
    ["200 KiB long (under the message limit, past DNS's)", Buffer.alloc(200 * 1024, 0x61), CLOSE_REASON.HostBlocked],
    ["a control character (NUL)", Buffer.from("a\u0000b.example"), CLOSE_REASON.HostBlocked],
    ["a control character (line feed)", Buffer.from("a\nb.example"), CLOSE_REASON.HostBlocked],
    ["invalid UTF-8", Buffer.from([0xff, 0xfe, 0x2e, 0xc3]), CLOSE_REASON.HostBlocked],
    ["1 byte (a single-label name: private by convention)", Buffer.from("a"), CLOSE_REASON.HostBlocked],
  ])(
    "%s: HostBlocked",
    async (_label, name, reason) => {
      const connection = await openWire(relay.url);
      const stream = connection.open(name, echo.port);
      expect(await stream.closed).toBe(reason);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );

  it(
    "missing (a CONNECT too short to hold one): InvalidInfo",
    async () => {
      const connection = await openWire(relay.url);
      const stream = connection.track(9);
      connection.sendFrame(WISP.CONNECT, 9, Uint8Array.of(0x01, 0xbb));
      expect(await stream.closed).toBe(CLOSE_REASON.InvalidInfo);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );

  it.each([["non-ASCII (IDNA)", "é.example"]])(
    "%s: served like any other name",
    async (_label, name) => {
      const connection = await openWire(relay.url);
      await answers(connection, name);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );
});

describe("a destination that fails closes only its own stream, with the matching reason", () => {
  it(
    "a port where nothing listens: ConnRefused",
    async () => {
      const connection = await openWire(relay.url);
      expect(await connection.open("127.0.0.1", closedPort).closed).toBe(CLOSE_REASON.ConnRefused);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );

  it(
    "a destination that resets the connection mid-stream: NetworkError, and a stream line saying so",
    async () => {
      const connection = await openWire(relay.url);
      const stream = connection.open("127.0.0.1", resetting.port);
      stream.send(Buffer.from("reset me"));
      expect(await stream.closed).toBe(CLOSE_REASON.NetworkError);
      const line = await relay.record((r) => r.kind === "relay.stream" && r.port === resetting.port);
      expect(line).toMatchObject({ code: "upstream-error" });
      expect(String(line.why)).toContain("ECONNRESET");
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );
});

describe("stream ids", () => {
  it(
    "a CONNECT for stream 0 (the connection's own) opens nothing, and the WebSocket goes on",
    async () => {
      const connection = await openWire(relay.url);
      const before = echo.connections();
      connection.sendFrame(WISP.CONNECT, 0, connectPayload("127.0.0.1", echo.port));
      await answers(connection);
      expect(echo.connections() - before).toBe(1); // the answer's own stream only
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );

  it(
    "stream 0xFFFFFFFF is a stream like any other",
    async () => {
      const connection = await openWire(relay.url);
      const stream = connection.openWithId(0xffffffff, "127.0.0.1", echo.port);
      stream.send(Buffer.from("top id"));
      expect((await stream.receivedAtLeast(6)).toString()).toBe("top id");
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );

  it(
    "a CONNECT reusing a live stream's id is ignored; that stream goes on",
    async () => {
      const connection = await openWire(relay.url);
      const before = echo.connections();
      const stream = connection.openWithId(7, "127.0.0.1", echo.port);
      connection.sendFrame(WISP.CONNECT, 7, connectPayload("é.example", echo.port));
      stream.send(Buffer.from("first"));
      expect((await stream.receivedAtLeast(5)).toString()).toBe("first");
      expect(echo.connections() - before).toBe(1);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );
});

describe("frames the relay does not expect are dropped, and the WebSocket goes on", () => {
  it.each([
    ["an empty message", Buffer.alloc(0)],
    ["a 1-byte message", Buffer.from([WISP.DATA])],
    ["a 4-byte message (no whole stream id)", Buffer.from([WISP.CONNECT, 1, 0, 0])],
    ["an unknown packet type (0x09)", wispFrame(0x09, 1, Buffer.from("x"))],
    ["an unknown packet type (0xff)", wispFrame(0xff, 0xffffffff, Buffer.alloc(64))],
    ["a CLOSE with no reason", wispFrame(WISP.CLOSE, 1, Buffer.alloc(0))],
    ["a CLOSE for a stream that does not exist", wispFrame(WISP.CLOSE, 12345, Uint8Array.of(CLOSE_REASON.Voluntary))],
    ["a CONTINUE from the client (stream 0)", wispFrame(WISP.CONTINUE, 0, Buffer.from([128, 0, 0, 0]))],
    ["a CONTINUE from the client with no payload", wispFrame(WISP.CONTINUE, 1, Buffer.alloc(0))],
    ["an INFO on Wisp v1", wispFrame(WISP.INFO, 0, Uint8Array.of(2, 0))],
    ["a DATA for a stream that does not exist", wispFrame(WISP.DATA, 4242, Buffer.from("nobody"))],
  ])(
    "%s",
    async (_label, message) => {
      const connection = await openWire(relay.url);
      connection.sendMessage(message);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );

  it(
    "a text message (UTF-8): dropped",
    async () => {
      const connection = await openWire(relay.url);
      connection.sendMessage(Buffer.from("hello, relay"), 1);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );

  it(
    "100,000 DATA frames for streams that do not exist",
    async () => {
      const connection = await openWire(relay.url);
      connection.sendMessages(wispFrame(WISP.DATA, 999_999, Uint8Array.of(1)), 100_000);
      await answers(connection);
      connection.close();
      await newClientServed();
    },
    CASE_MS,
  );
});

describe("Wisp v2", () => {
  it(
    "a client's INFO completes the handshake, and a later INFO or CONTINUE is dropped",
    async () => {
      const connection = await openWire(relay.url, { wispV2: {} });
      connection.sendFrame(WISP.INFO, 0, Uint8Array.of(2, 0));
      connection.sendFrame(WISP.CONTINUE, 0, Buffer.from([128, 0, 0, 0]));
      await answers(connection);
      connection.close();
      await newClientServed({ wispV2: {} });
    },
    CASE_MS,
  );

  it.each([
    ["a CONTINUE", wispFrame(WISP.CONTINUE, 0, Buffer.from([128, 0, 0, 0]))],
    ["a CONNECT", wispFrame(WISP.CONNECT, 1, connectPayload("127.0.0.1", 443))],
    ["an INFO too short to hold a version", wispFrame(WISP.INFO, 0, Buffer.alloc(0))],
    ["a 1-byte message", Buffer.from([WISP.INFO])],
  ])(
    "%s as the client's first message: close 1002, one line, the relay goes on",
    async (_label, firstMessage) => {
      const before = relay.records().length;
      const refused = await openWire(relay.url, { wispV2: { firstMessage } }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ClosedBeforeReady);
      expect((refused as ClosedBeforeReady).closeCode).toBe(1002);
      await expect.poll(() => closedLines(before).length).toBe(1);
      expect(closedLines(before)[0]).toMatchObject({ status: 1002, code: "malformed-frame" });
      await newClientServed({ wispV2: {} });
    },
    CASE_MS,
  );
});

describe("a client that never reads", () => {
  it("a ping flood is cut once its pongs back up (one line), and a new client is served", async () => {
    const before = relay.records().length;
    const connection = await openWire(relay.url);
    connection.stopReading();
    // 200,000 pings of 125 bytes: their pongs (25 MB) are past what loopback buffers hold.
    connection.sendMessages(Buffer.alloc(125, 0x70), 200_000, 9);
    await connection.ended;
    await expect.poll(() => closedLines(before).length).toBe(1);
    expect(closedLines(before)[0]).toMatchObject({ status: null, code: "too-large" });
    expect(String(closedLines(before)[0]?.why)).toContain("pings without reading");
    await newClientServed();
  }, 30_000);
});

describe("after the whole series", () => {
  it("the relay process is alive, serves a new client, and printed no stack trace", async () => {
    expect(relay.child.exitCode).toBeNull();
    await newClientServed();
    await newClientServed({ wispV2: {} });
    expect(relay.stderr()).not.toMatch(/\n\s+at /);
  });
});

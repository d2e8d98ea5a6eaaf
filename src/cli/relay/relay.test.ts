import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EchoUpstream, echoUpstream, openStream, openWisp, type RunningRelay, runRelay, runTab, sha256 } from "./testing/harness";

// Part 1: `npx tab relay` as a real process, driven by wisp-js's own Wisp client.
// Everything is on 127.0.0.1: the upstream is a local echo server, reached only under the
// test-only `--allow-private-for-tests 127.0.0.1`; names are answered by `--resolve`, never DNS.
// Refused destinations (10.0.0.1 among them) are refused before any connection attempt.

const HOST_BLOCKED = 0x48;
const VOLUNTARY = 0x02;
const CONN_REFUSED = 0x44;

let echo: EchoUpstream;
let other: EchoUpstream;
/** A port nothing listens on (a server bound it, then closed). */
let closedPort: number;
let allowing: RunningRelay;
let strict: RunningRelay;

beforeAll(async () => {
  echo = await echoUpstream();
  other = await echoUpstream();
  const closed = await echoUpstream();
  closedPort = closed.port;
  await new Promise((resolve) => closed.server.close(resolve));
  allowing = await runRelay([
    "--allow-private-for-tests",
    "127.0.0.1",
    "--allow-ports",
    `${echo.port},${closedPort}`,
    "--resolve",
    "echo.test=127.0.0.1",
  ]);
  strict = await runRelay([
    "--allow-ports",
    String(echo.port),
    "--resolve",
    "loopback.test=127.0.0.1",
    "--resolve",
    "private.test=10.0.0.1",
    "--resolve",
    "loopback6.test=::1",
  ]);
}, 30_000);

afterAll(() => {
  allowing?.child.kill("SIGINT");
  strict?.child.kill("SIGINT");
  echo?.server.close();
  other?.server.close();
});

describe("npx tab relay", () => {
  it("relays a stream to an allowed local upstream, every byte both ways (checksummed)", async () => {
    const connection = await openWisp(allowing.url);
    const upstreamIndex = echo.received.length;
    const s = openStream(connection, "127.0.0.1", echo.port);
    const payload = randomBytes(1024 * 1024);
    for (let at = 0; at < payload.length; at += 16 * 1024) s.stream.send(payload.subarray(at, at + 16 * 1024));

    const back = await s.receivedAtLeast(payload.length);
    expect(back.length).toBe(payload.length);
    expect(sha256(back)).toBe(sha256(payload));
    s.stream.close();
    // What the upstream received, hashed on its side once the relay closed the connection.
    expect(await echo.received[upstreamIndex]).toBe(sha256(payload));

    const record = await allowing.record((r) => r.port === echo.port && r.name === "127.0.0.1");
    expect(record).toMatchObject({
      kind: "relay.stream",
      name: "127.0.0.1",
      address: "127.0.0.1",
      port: echo.port,
      refused: false,
      code: "served",
      why: null,
      bytes: { toUpstream: payload.length, fromUpstream: payload.length },
    });
    // The line carries how long the stream lasted (its value is not asserted: no timings in tests).
    expect(record).toHaveProperty("durationMs", expect.any(Number));
    connection.close();
  });

  it("connects a name to the address it was checked at (--resolve) and records both", async () => {
    const connection = await openWisp(allowing.url);
    const s = openStream(connection, "echo.test", echo.port);
    s.stream.send(new TextEncoder().encode("ping"));
    expect((await s.receivedAtLeast(4)).toString()).toBe("ping");
    s.stream.close();
    const record = await allowing.record((r) => r.name === "echo.test");
    expect(record).toMatchObject({ address: "127.0.0.1", refused: false, bytes: { toUpstream: 4, fromUpstream: 4 } });
    connection.close();
  });

  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["10.0.0.1", "10.0.0.1"],
    ["[::1]", "::1"],
    ["::1", "::1"],
    ["2130706433 (127.0.0.1 spelled as a number)", "2130706433"],
    ["a name resolving to 127.0.0.1", "loopback.test"],
    ["a name resolving to 10.0.0.1", "private.test"],
    ["a name resolving to ::1", "loopback6.test"],
  ])("refuses %s without --allow-private-for-tests, before any connection", async (_label, host) => {
    const connection = await openWisp(strict.url);
    const before = echo.connections();
    const s = openStream(connection, host, echo.port);
    s.stream.send(new TextEncoder().encode("must not leave"));
    expect(await s.closed).toBe(HOST_BLOCKED);
    const record = await strict.record((r) => r.name === host);
    expect(record).toMatchObject({
      refused: true,
      code: "private-address",
      address: null,
      bytes: { toUpstream: 0, fromUpstream: 0 },
    });
    expect(String(record.why)).toMatch(/only public addresses/);
    expect(echo.connections()).toBe(before);
    connection.close();
  });

  it("refuses a destination port other than 443, 80 and --allow-ports, even to an allowed address", async () => {
    const connection = await openWisp(allowing.url);
    const s = openStream(connection, "127.0.0.1", other.port);
    expect(await s.closed).toBe(HOST_BLOCKED);
    const record = await allowing.record((r) => r.port === other.port);
    expect(record).toMatchObject({ refused: true, code: "port-not-allowed", address: null });
    expect(String(record.why)).toContain(`port ${other.port} is not allowed`);
    expect(other.connections()).toBe(0);
    connection.close();
  });

  it("reports an allowed destination that refuses the connection as upstream-error, not as a refusal", async () => {
    const connection = await openWisp(allowing.url);
    const s = openStream(connection, "127.0.0.1", closedPort);
    expect(await s.closed).toBe(CONN_REFUSED);
    const record = await allowing.record((r) => r.port === closedPort);
    expect(record).toMatchObject({ refused: false, code: "upstream-error", address: "127.0.0.1" });
    expect(String(record.why)).toContain("ECONNREFUSED");
    connection.close();
  });

  it("closes open streams with Wisp CLOSE (voluntary) on Ctrl+C, prints their lines and exits 0", async () => {
    const relay = await runRelay(["--allow-private-for-tests", "127.0.0.1", "--allow-ports", String(echo.port)]);
    const connection = await openWisp(relay.url);
    const upstreamIndex = echo.received.length;
    const s = openStream(connection, "127.0.0.1", echo.port);
    s.stream.send(new TextEncoder().encode("open"));
    await s.receivedAtLeast(4);

    relay.child.kill("SIGINT");
    expect(await s.closed).toBe(VOLUNTARY);
    expect(await relay.exited).toBe(0);
    // The upstream saw the relay's FIN: its connection ended, with what it was sent.
    expect(await echo.received[upstreamIndex]).toBe(sha256(new TextEncoder().encode("open")));
    expect(relay.records()).toEqual([expect.objectContaining({ name: "127.0.0.1", refused: false, code: "served" })]);
  });

  it("says clearly that the port is in use, and exits 1", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    const { code, stderr } = await runTab(["relay", "--host", "127.0.0.1", "--port", String(port)]);
    holder.close();
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot listen on 127.0.0.1:${port}: port ${port} is already in use`);
  });

  it("documents its flags and where stream lines go in --help", async () => {
    const { code, stdout } = await runTab(["relay", "--help"]);
    expect(code).toBe(0);
    for (const flag of ["--port", "--host", "--allow-ports", "--allow-private-for-tests", "--resolve NAME=IP"])
      expect(stdout).toContain(flag);
    expect(stdout).toContain("one JSON line per stream on stdout");
  });

  it.each([
    ["--allow-ports", "abc"],
    ["--allow-ports", "0"],
    ["--resolve", "no-address"],
    ["--resolve", "name=not-an-ip"],
    ["--port", "70000"],
  ])("refuses %s %j with usage exit code 64", async (flag, value) => {
    const { code, stderr } = await runTab(["relay", flag, value]);
    expect(code).toBe(64);
    expect(stderr).toContain(flag);
  });
});

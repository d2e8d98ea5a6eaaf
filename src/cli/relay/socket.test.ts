import { describe, expect, it } from "vitest";
import { refuse } from "../../log";
import type { StreamCheck } from "./check";
import type { StreamRecord } from "./record";
import { RelaySocket, StreamRefused } from "./socket";

// One stream's TCP side, in process, with the check injected: what connect() throws decides
// the Wisp CLOSE reason (connection.ts), and the record says whether the relay refused.

function socketWith(check: StreamCheck, tcp = true) {
  const records: StreamRecord[] = [];
  const socket = new RelaySocket({
    name: "dest.example",
    port: 443,
    tcp,
    check,
    report: (record) => records.push(record),
    connection: "c",
    stream: 1,
    client: "127.0.0.1",
  });
  return { socket, records };
}

describe("a relay stream's socket", () => {
  it("reports a refused stream as refused, with no address and no bytes", async () => {
    const { socket, records } = socketWith(async () => ({ verdict: refuse("private-address", "dest.example is private", "proxy") }));
    await expect(socket.connect()).rejects.toBeInstanceOf(StreamRefused);
    await socket.send(new Uint8Array(10));
    await socket.close();
    expect(records).toEqual([
      expect.objectContaining({ refused: true, code: "private-address", address: null, bytes: { toUpstream: 0, fromUpstream: 0 } }),
    ]);
  });

  it("answers a name that does not resolve as a refusal is answered, but records it as a failure (upstream-error)", async () => {
    const { socket, records } = socketWith(async () => ({ verdict: refuse("upstream-error", "could not resolve dest.example", "proxy") }));
    await expect(socket.connect()).rejects.toMatchObject({ name: "StreamRefused", throttled: false });
    await socket.close();
    expect(records).toEqual([expect.objectContaining({ refused: false, code: "upstream-error", why: "could not resolve dest.example" })]);
  });

  it("refuses a UDP stream without consulting the check", async () => {
    let asked = false;
    const { socket, records } = socketWith(async () => {
      asked = true;
      return { verdict: refuse("private-address", "unused", "proxy") };
    }, false);
    await expect(socket.connect()).rejects.toBeInstanceOf(StreamRefused);
    await socket.close();
    expect(asked).toBe(false);
    expect(records[0]).toMatchObject({ refused: true, code: "bad-request" });
  });

  it("reports a stream closed before its check finished once, and never connects it", async () => {
    let answer: (value: Awaited<ReturnType<StreamCheck>>) => void = () => undefined;
    const { socket, records } = socketWith(() => new Promise((resolve) => (answer = resolve)));
    const connecting = socket.connect();
    await socket.close();
    await socket.close();
    answer({ verdict: { allowed: true, code: "served", reason: "ok", by: "proxy" }, address: "192.0.2.1" });
    await expect(connecting).rejects.toThrow(/closed before/);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ refused: false, address: null });
  });
});

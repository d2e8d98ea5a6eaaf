import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { concatBytes } from "../bytes";
import { createEventLog } from "../log";
import { fakeTimers } from "../platform/testing/fake-timers";
import { createNetworkPeer, type TcpStream } from "./index";
import { createFakeWire, type FakeWireOptions } from "./testing/fake-wire";
import { TestGuest } from "./testing/tcp-client";

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");
const MB = 1024 * 1024;

function setup(wire: FakeWireOptions = {}) {
  const timers = fakeTimers();
  const log = createEventLog({ clock: () => timers.now() });
  const { peerLink, guest: end, stats } = createFakeWire(timers, wire);
  let isn = 7;
  const peer = createNetworkPeer({ link: peerLink, log, timers, isn: () => (isn = (isn * 48271 + 11) >>> 0) });
  const guest = new TestGuest(end, { timers });
  return { timers, log, peer, guest, stats };
}

/** Reads a stream to its end. */
async function readAll(stream: TcpStream): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.readable.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return concatBytes(...parts);
}

/** The page side of each test: records what it read, then writes its answer and closes. */
function serve(peer: ReturnType<typeof setup>["peer"], port: number, answer: (request: Uint8Array) => Uint8Array) {
  const served: { id: string; request: Uint8Array }[] = [];
  peer.listen(port, (stream) => {
    void (async () => {
      const request = await readAll(stream);
      served.push({ id: stream.id, request });
      const writer = stream.writable.getWriter();
      await writer.write(answer(request));
      await writer.close();
    })();
  });
  return served;
}

describe("a real TCP transfer between a guest client and the peer (the proxy port 3128)", () => {
  it.each<[string, FakeWireOptions]>([
    ["over a clean wire", {}],
    ["with 2% loss and 5% reordering each way", { lossRate: 0.02, reorderRate: 0.05, seed: 42 }],
  ])("moves 1 MB each way intact, %s", async (_name, wire) => {
    const { timers, peer, guest, log, stats } = setup(wire);
    const upload = new Uint8Array(randomBytes(MB));
    const download = new Uint8Array(randomBytes(MB));
    const served = serve(peer, 3128, () => download);

    const conn = guest.connect(3128);
    conn.send(upload);
    conn.close(); // half-close: the guest is done sending, still reading
    await timers.runUntil(() => conn.state === "closed", 120_000);

    expect(sha256(served[0]!.request)).toBe(sha256(upload));
    expect(sha256(conn.received())).toBe(sha256(download));
    if (wire.lossRate) {
      expect(stats.lost).toBeGreaterThan(0);
      expect(peer.counters.tcpRetransmits).toBeGreaterThan(0);
    }
    await timers.advance(5000); // LAST-ACK ends when the guest's ACK of our FIN arrives
    expect(peer.connectionCount).toBe(0);
    const closes = log.ofKind("wire.connection").filter((e) => e.phase === "close");
    expect(closes).toEqual([expect.objectContaining({ bytesIn: MB, bytesOut: MB, port: 3128 })]);
  });

  it("serves 32 concurrent connections, each getting its own bytes back", async () => {
    const { timers, peer, guest } = setup({ lossRate: 0.01, reorderRate: 0.02, seed: 7 });
    serve(peer, 3128, (request) => request.slice().reverse());
    const requests = Array.from({ length: 32 }, (_, i) => new Uint8Array(randomBytes(20_000 + i * 997)));
    const conns = requests.map((request) => {
      const conn = guest.connect(3128);
      conn.send(request);
      conn.close();
      return conn;
    });
    await timers.runUntil(() => conns.every((c) => c.state === "closed"), 120_000);
    conns.forEach((conn, i) => {
      expect(sha256(conn.received())).toBe(sha256(requests[i]!.slice().reverse()));
    });
    expect(peer.counters.connectionsOpened).toBe(32);
  });

  it("answers a connect to port 9 with RST and a no-route verdict (ECONNREFUSED in the guest)", async () => {
    const { timers, guest, log } = setup();
    const conn = guest.connect(9);
    await timers.runUntil(() => conn.state !== "syn-sent", 1000);
    expect(conn.state).toBe("reset");
    expect(log.ofKind("wire.verdict")).toEqual([
      expect.objectContaining({ target: "10.0.2.2:9", allowed: false, code: "no-route", by: "wire" }),
    ]);
  });

  it("answers a connect to an address outside the tab with RST, logged before the RST goes out", async () => {
    const { timers, guest, log } = setup();
    const conn = guest.connect(443, 0x5db8d822); // 93.184.216.34
    await timers.runUntil(() => conn.state !== "syn-sent", 1000);
    expect(conn.state).toBe("reset");
    const kinds = log.events().map((e) => (e.kind === "wire.frame" ? `${e.kind}:${e.dir}` : e.kind));
    expect(kinds).toEqual(["wire.frame:in", "wire.verdict", "wire.frame:out"]);
    expect(log.ofKind("wire.verdict")[0]).toMatchObject({
      target: "93.184.216.34:443",
      reason: expect.stringContaining("no route out of the tab"),
    });
  });
});

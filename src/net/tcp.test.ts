import { describe, expect, it } from "vitest";
import type { TcpConfig } from "./tcp-host";
import { TCP_ACK, TCP_FIN, TCP_PSH, TCP_RST, TCP_SYN } from "./tcp-segment";
import type { TcpStream } from "./tcp-stream";
import { createScriptedPeer, type DecodedFrame, guestTcpFrame } from "./testing/scripted";

// The peer's ISN is 5000 (its first data byte is 5001); the guest's is 100 (first byte 101).
const PORT = 3128;
const GUEST_PORT = 40000;
const bytes = (n: number, fill = 0x61): Uint8Array => new Uint8Array(n).fill(fill);
const tcpOf = (frames: DecodedFrame[]) => frames.map((f) => f.tcp!);

const TEST_TCP: Partial<TcpConfig> = { initialRtoMs: 1000, minRtoMs: 200, delayedAckMs: 10, timeWaitMs: 500 };

/** A peer with one established connection from the guest (MSS 1000, window as given). */
function established(options: { tcp?: Partial<TcpConfig>; guestWindow?: number } = {}) {
  const s = createScriptedPeer({ tcp: { ...TEST_TCP, ...options.tcp } });
  const accepted: TcpStream[] = [];
  s.peer.listen(PORT, (stream) => accepted.push(stream));
  const window = options.guestWindow ?? 65535;
  s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 100, ack: 0, flags: TCP_SYN, mss: 1000, window }));
  const synAck = s.take();
  s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 101, ack: 5001, flags: TCP_ACK, window }));
  const segment = (seq: number, flags: number, payload: Uint8Array = new Uint8Array(0), ack = 5001, w = window) =>
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq, ack, flags, window: w }, payload));
  const state = () => s.peer.connections()[0]?.state ?? "gone";
  return { ...s, synAck, stream: accepted[0]!, accepted, segment, state };
}

async function readBytes(stream: TcpStream, count: number): Promise<number> {
  const reader = stream.readable.getReader();
  let total = 0;
  while (total < count) {
    const r = await reader.read();
    if (r.done) break;
    total += r.value.length;
  }
  reader.releaseLock();
  return total;
}

describe("TCP handshake (RFC 9293 §3.5)", () => {
  it("answers SYN with SYN-ACK carrying MSS 1460, and accepts only after the final ACK", () => {
    const s = createScriptedPeer({ tcp: TEST_TCP });
    const accepted: TcpStream[] = [];
    s.peer.listen(PORT, (stream) => accepted.push(stream));
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 100, ack: 0, flags: TCP_SYN, mss: 1000 }));
    expect(tcpOf(s.take())).toEqual([expect.objectContaining({ flags: TCP_SYN | TCP_ACK, seq: 5000, ack: 101, mss: 1460 })]);
    expect(accepted).toHaveLength(0);
    expect(s.peer.connections()[0]?.state).toBe("syn-received");
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 101, ack: 5001, flags: TCP_ACK }));
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({ id: "tcp-1", localPort: PORT, remote: { address: "10.0.2.15", port: GUEST_PORT } });
    expect(s.log.ofKind("wire.connection")).toEqual([
      expect.objectContaining({ phase: "open", id: "tcp-1", remote: "10.0.2.15:40000", port: PORT }),
    ]);
  });

  it("resends the same SYN-ACK for a retransmitted SYN", () => {
    const s = createScriptedPeer({ tcp: TEST_TCP });
    s.peer.listen(PORT, () => {});
    const syn = guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 100, ack: 0, flags: TCP_SYN, mss: 1000 });
    s.deliver(syn);
    s.deliver(syn);
    expect(tcpOf(s.take()).map((t) => [t.flags, t.seq, t.ack])).toEqual([
      [TCP_SYN | TCP_ACK, 5000, 101],
      [TCP_SYN | TCP_ACK, 5000, 101],
    ]);
    expect(s.peer.connectionCount).toBe(1);
  });

  it("retransmits the SYN-ACK on its timer when the final ACK is lost", async () => {
    const s = createScriptedPeer({ tcp: TEST_TCP });
    s.peer.listen(PORT, () => {});
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 100, ack: 0, flags: TCP_SYN }));
    s.take();
    await s.timers.advance(1000);
    expect(tcpOf(s.take())).toEqual([expect.objectContaining({ flags: TCP_SYN | TCP_ACK, seq: 5000 })]);
  });

  it("answers an ACK of the wrong number in SYN-RECEIVED with RST", () => {
    const s = createScriptedPeer({ tcp: TEST_TCP });
    s.peer.listen(PORT, () => {});
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 100, ack: 0, flags: TCP_SYN }));
    s.take();
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 101, ack: 9999, flags: TCP_ACK }));
    expect(tcpOf(s.take())).toEqual([expect.objectContaining({ flags: TCP_RST, seq: 9999 })]);
  });
});

describe("TCP data from the guest", () => {
  it("delivers in-order data and ACKs at once after two full segments", async () => {
    const c = established();
    c.segment(101, TCP_ACK, bytes(1460));
    expect(c.take()).toEqual([]); // the first segment waits for a second or the delayed-ACK timer
    c.segment(1561, TCP_ACK | TCP_PSH, bytes(1460));
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ flags: TCP_ACK, ack: 3021 })]);
    expect(await readBytes(c.stream, 2920)).toBe(2920);
  });

  it("ACKs a lone small segment on the delayed-ACK timer", async () => {
    const c = established();
    c.segment(101, TCP_ACK | TCP_PSH, bytes(10));
    expect(c.take()).toEqual([]);
    await c.timers.advance(10);
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 111 })]);
  });

  it("re-ACKs a retransmitted segment at once and delivers its bytes only once", async () => {
    const c = established();
    c.segment(101, TCP_ACK, bytes(100));
    c.segment(101, TCP_ACK, bytes(100));
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 201 })]);
    expect(c.peer.counters.tcpDuplicatesIn).toBe(1);
    expect(c.peer.connections()[0]?.bytesIn).toBe(100);
  });

  it("keeps only the new part of a segment that overlaps received data", () => {
    const c = established();
    c.segment(101, TCP_ACK, bytes(100));
    c.segment(151, TCP_ACK, bytes(100)); // bytes 151..200 are old, 201..250 are new
    expect(c.peer.connections()[0]?.bytesIn).toBe(150);
  });

  it("holds an out-of-order segment, sends a duplicate ACK, and delivers both once the hole fills", async () => {
    const c = established();
    c.segment(201, TCP_ACK, bytes(100, 0x62));
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 101 })]);
    c.segment(101, TCP_ACK, bytes(100, 0x61));
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 301 })]);
    const reader = c.stream.readable.getReader();
    const first = await reader.read();
    const second = await reader.read();
    expect([first.value?.[0], second.value?.[0]]).toEqual([0x61, 0x62]);
    expect(c.peer.counters.tcpOutOfOrderIn).toBe(1);
  });

  it("drops out-of-order data beyond its bound and counts it (the guest resends)", () => {
    const c = established({ tcp: { outOfOrderLimit: 150 } });
    c.segment(201, TCP_ACK, bytes(100));
    c.segment(301, TCP_ACK, bytes(100));
    expect(c.peer.counters).toMatchObject({ tcpOutOfOrderIn: 1, tcpOutOfOrderDropped: 1 });
  });

  it("advertises a shrinking window while the page does not read, drops data past it, and reopens on read", async () => {
    const c = established({ tcp: { receiveBuffer: 3000, mss: 1000 } });
    c.segment(101, TCP_ACK, bytes(1000));
    c.segment(1101, TCP_ACK, bytes(1000));
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 2101, window: 1000 })]);
    c.segment(2101, TCP_ACK, bytes(1000));
    await c.timers.advance(10);
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 3101, window: 0 })]);
    c.segment(3101, TCP_ACK, bytes(1)); // a zero-window probe
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 3101, window: 0 })]);
    expect(await readBytes(c.stream, 3000)).toBe(3000);
    const updates = tcpOf(c.take()); // window updates as the page reads
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.at(-1)).toMatchObject({ ack: 3101, window: 3000 });
  });
});

describe("TCP data to the guest", () => {
  it("segments a large write by the guest's MSS and respects the guest's window", async () => {
    const c = established({ guestWindow: 2500 });
    const writer = c.stream.writable.getWriter();
    await writer.write(bytes(5000));
    expect(tcpOf(c.take()).map((t) => [t.seq, t.payload.length])).toEqual([
      [5001, 1000],
      [6001, 1000],
      [7001, 500],
    ]);
    c.segment(101, TCP_ACK, undefined, 7501, 2500);
    expect(tcpOf(c.take()).map((t) => [t.seq, t.payload.length])).toEqual([
      [7501, 1000],
      [8501, 1000],
      [9501, 500],
    ]);
  });

  it("retransmits unacknowledged data from SND.UNA when the timer fires, then stops once ACKed", async () => {
    const c = established();
    const writer = c.stream.writable.getWriter();
    await writer.write(bytes(2000));
    c.take();
    await c.timers.advance(1000);
    expect(tcpOf(c.take()).map((t) => [t.seq, t.payload.length])).toEqual([
      [5001, 1000],
      [6001, 1000],
    ]);
    expect(c.peer.counters.tcpRetransmits).toBe(2);
    c.segment(101, TCP_ACK, undefined, 7001);
    await c.timers.advance(60_000);
    expect(c.take()).toEqual([]);
  });

  it("fast-retransmits after three duplicate ACKs", async () => {
    const c = established();
    const writer = c.stream.writable.getWriter();
    await writer.write(bytes(4000));
    c.take();
    for (let i = 0; i < 3; i++) c.segment(101, TCP_ACK, undefined, 5001);
    expect(tcpOf(c.take()).map((t) => t.seq)).toEqual([5001]);
  });

  it("probes a zero window with one byte on the persist timer", async () => {
    const c = established({ guestWindow: 0 });
    const writer = c.stream.writable.getWriter();
    await writer.write(bytes(100));
    expect(c.take()).toEqual([]);
    await c.timers.advance(1000);
    expect(tcpOf(c.take()).map((t) => [t.seq, t.payload.length])).toEqual([[5001, 1]]);
  });

  it("makes write() wait while the send buffer is full (backpressure to the page)", async () => {
    const c = established({ tcp: { sendBuffer: 3000 }, guestWindow: 1000 });
    const writer = c.stream.writable.getWriter();
    let resolved = false;
    void writer.write(bytes(4000)).then(() => {
      resolved = true;
    });
    await c.timers.advance(1);
    expect(resolved).toBe(false);
    c.segment(101, TCP_ACK, undefined, 6001, 65535);
    c.segment(101, TCP_ACK, undefined, 9001, 65535);
    await c.timers.advance(1);
    expect(resolved).toBe(true);
  });
});

describe("TCP close, half-close and reset (RFC 9293 §3.6)", () => {
  it("ends the readable when the guest sends FIN, then sends its own FIN when the page closes (CLOSE-WAIT → LAST-ACK → closed)", async () => {
    const c = established();
    c.segment(101, TCP_ACK | TCP_FIN, bytes(5));
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 107 })]);
    expect(c.state()).toBe("close-wait");
    expect(await readBytes(c.stream, 100)).toBe(5); // then done
    const writer = c.stream.writable.getWriter();
    await writer.write(bytes(10)); // half-close: the page may still answer
    await writer.close();
    expect(tcpOf(c.take()).map((t) => [t.flags & (TCP_FIN | TCP_ACK), t.payload.length])).toEqual([
      [TCP_ACK, 10],
      [TCP_FIN | TCP_ACK, 0],
    ]);
    expect(c.state()).toBe("last-ack");
    c.segment(107, TCP_ACK, undefined, 5012);
    expect(c.state()).toBe("gone");
    expect(c.log.ofKind("wire.connection").at(-1)).toMatchObject({ phase: "close", bytesIn: 5, bytesOut: 10 });
  });

  it("closes first (FIN-WAIT-1 → FIN-WAIT-2), keeps reading the guest's data, and leaves TIME-WAIT after its short timer", async () => {
    const c = established();
    await c.stream.writable.getWriter().close();
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ flags: TCP_FIN | TCP_ACK, seq: 5001 })]);
    expect(c.state()).toBe("fin-wait-1");
    c.segment(101, TCP_ACK, undefined, 5002);
    expect(c.state()).toBe("fin-wait-2");
    c.segment(101, TCP_ACK | TCP_PSH, bytes(50));
    c.segment(151, TCP_ACK | TCP_FIN, undefined, 5002);
    expect(c.state()).toBe("time-wait");
    expect(await readBytes(c.stream, 100)).toBe(50);
    c.take();
    c.segment(151, TCP_ACK | TCP_FIN, undefined, 5002); // the guest's FIN again: re-ACK
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ ack: 152 })]);
    await c.timers.advance(500);
    expect(c.state()).toBe("gone");
  });

  it("handles simultaneous close (FIN-WAIT-1 → CLOSING → TIME-WAIT)", async () => {
    const c = established();
    await c.stream.writable.getWriter().close();
    c.segment(101, TCP_ACK | TCP_FIN, undefined, 5001);
    expect(c.state()).toBe("closing");
    c.segment(102, TCP_ACK, undefined, 5002);
    expect(c.state()).toBe("time-wait");
  });

  const reach = {
    established: async (_c: ReturnType<typeof established>) => {},
    "close-wait": async (c: ReturnType<typeof established>) => c.segment(101, TCP_ACK | TCP_FIN),
    "fin-wait-1": async (c: ReturnType<typeof established>) => c.stream.writable.getWriter().close(),
    "fin-wait-2": async (c: ReturnType<typeof established>) => {
      await c.stream.writable.getWriter().close();
      c.segment(101, TCP_ACK, undefined, 5002);
    },
  };

  it.each(Object.keys(reach) as (keyof typeof reach)[])(
    "tears down on an in-window RST in %s: streams error, a reset is logged",
    async (state) => {
      const c = established();
      await reach[state](c);
      expect(c.state()).toBe(state);
      const seq = state === "close-wait" ? 102 : 101;
      c.segment(seq, TCP_RST);
      expect(c.state()).toBe("gone");
      expect(c.log.ofKind("wire.connection").at(-1)).toMatchObject({ phase: "reset", note: "the guest sent RST" });
      if (state !== "close-wait") await expect(c.stream.readable.getReader().read()).rejects.toThrow(/reset/);
    },
  );

  it("ignores a RST whose sequence number is outside the window (RFC 5961)", () => {
    const c = established();
    c.segment(100_000, TCP_RST);
    expect(c.state()).toBe("established");
  });

  it("drops a half-open connection on RST in SYN-RECEIVED without accepting it", () => {
    const s = createScriptedPeer({ tcp: TEST_TCP });
    const accepted: TcpStream[] = [];
    s.peer.listen(PORT, (stream) => accepted.push(stream));
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 100, ack: 0, flags: TCP_SYN }));
    s.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 101, ack: 0, flags: TCP_RST }));
    expect(s.peer.connectionCount).toBe(0);
    expect(accepted).toHaveLength(0);
  });

  it("sends RST when the page aborts the stream", () => {
    const c = established();
    c.stream.abort("proxy gave up");
    expect(tcpOf(c.take())).toEqual([expect.objectContaining({ flags: TCP_RST | TCP_ACK, seq: 5001, ack: 101 })]);
    expect(c.log.ofKind("wire.connection").at(-1)).toMatchObject({ phase: "reset", note: "proxy gave up" });
  });

  it("resets after too many retransmissions without any answer", async () => {
    const c = established({ tcp: { maxRetransmits: 3 } });
    await c.stream.writable.getWriter().write(bytes(10));
    await c.timers.advance(120_000);
    expect(c.state()).toBe("gone");
    expect(c.log.ofKind("wire.connection").at(-1)).toMatchObject({ phase: "reset", note: expect.stringMatching(/3 retransmissions/) });
  });

  it("starts a new connection when a SYN reuses a port pair in TIME-WAIT", async () => {
    const c = established();
    await c.stream.writable.getWriter().close();
    c.segment(101, TCP_ACK | TCP_FIN, undefined, 5002);
    expect(c.state()).toBe("time-wait");
    c.deliver(guestTcpFrame({ srcPort: GUEST_PORT, dstPort: PORT, seq: 90_000, ack: 0, flags: TCP_SYN }));
    expect(c.state()).toBe("syn-received");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BROADCAST_MAC, parseIpv4Address } from "./address";
import { ARP_REQUEST, serializeArpPacket } from "./arp";
import { ETHERTYPE_ARP, serializeEthernetFrame } from "./ethernet";
import { TCP_ACK, TCP_PSH, TCP_SYN } from "./tcp-segment";
import { seededRandom } from "./testing/fake-wire";
import { createScriptedPeer, GUEST_IP, GUEST_MAC, guestPingFrame, guestTcpFrame, guestUdpFrame, PEER_IP } from "./testing/scripted";

describe("the peer never throws on hostile frames (malformed frames are counted and logged)", () => {
  const seeds = [1, 2, 3];
  const valid = [
    guestPingFrame(1, 1, new Uint8Array(32)),
    guestUdpFrame({ srcPort: 1000, dstPort: 53, payload: Uint8Array.of(0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x61, 0, 0, 1, 0, 1) }),
    guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq: 1, ack: 0, flags: TCP_SYN, mss: 1460 }),
    guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq: 2, ack: 5001, flags: TCP_ACK }, new Uint8Array(100)),
  ];

  it.each(seeds)("survives 3000 random and mutated frames (seed %i)", (seed) => {
    const random = seededRandom(seed);
    const { peer, deliver, log } = createScriptedPeer();
    peer.listen(3128, (stream) => void stream.readable.cancel());
    let mutated = 0;
    for (let i = 0; i < 3000; i++) {
      let frame: Uint8Array;
      if (random() < 0.3) {
        frame = Uint8Array.from({ length: Math.floor(random() * 120) }, () => Math.floor(random() * 256));
      } else {
        frame = valid[Math.floor(random() * valid.length)]!.slice();
        const flips = 1 + Math.floor(random() * 4);
        for (let f = 0; f < flips; f++) {
          const at = Math.floor(random() * frame.length);
          frame[at] = frame[at]! ^ (1 << Math.floor(random() * 8));
        }
        if (random() < 0.2) frame = frame.subarray(0, Math.floor(random() * frame.length));
        mutated++;
      }
      expect(() => deliver(frame)).not.toThrow();
    }
    expect(mutated).toBeGreaterThan(1000);
    expect(peer.counters.errors).toBe(0);
    expect(peer.counters.malformed).toBeGreaterThan(1000);
    expect(log.ofKind("wire.malformed")).toHaveLength(peer.counters.malformed);
    expect(log.ofKind("note")).toEqual([]);
  });

  it.each([
    ["a truncated Ethernet header", new Uint8Array(10), /truncated Ethernet header/, "malformed-frame"],
    [
      "an unknown ethertype",
      Uint8Array.of(0x52, 0x54, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0x15, 0x88, 0xcc, 0),
      /unknown ethertype 0x88cc/,
      "malformed-frame",
    ],
    [
      "a bad TCP checksum",
      (() => {
        const f = guestTcpFrame({ srcPort: 1, dstPort: 3128, seq: 1, ack: 0, flags: TCP_SYN });
        f[f.length - 3]! ^= 0xff;
        return f;
      })(),
      /TCP checksum mismatch/,
      "malformed-frame",
    ],
    [
      "an IPv4 fragment",
      (() => {
        const f = guestPingFrame(1, 1, new Uint8Array(8));
        f[20] = 0x20; // more fragments
        const view = new DataView(f.buffer);
        view.setUint16(24, 0);
        let sum = 0;
        for (let i = 14; i < 34; i += 2) sum += view.getUint16(i);
        while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
        view.setUint16(24, ~sum & 0xffff);
        return f;
      })(),
      /fragment/,
      "fragment-refused",
    ],
  ])("logs %s as wire.malformed with its reason", (_name, frame, reason, code) => {
    const { peer, deliver, log } = createScriptedPeer();
    deliver(frame);
    expect(peer.counters.malformed).toBe(1);
    expect(log.ofKind("wire.malformed")).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(reason), code, bytes: frame.length }),
    ]);
  });
});

// Property-based fuzzing (fast-check, seeded so a failure replays; FUZZ_SEED=n explores
// another seed). Whatever the guest puts on the wire, no exception escapes the peer, an
// unusable frame is counted and logged as malformed, and what the peer sends back is bounded
// by what it was sent: no frame makes it do (or send) more than a constant times its size.
describe("the peer never throws and never amplifies, whatever the frames (fast-check)", () => {
  const SEED = Number(process.env.FUZZ_SEED ?? 16);
  const MAX_FRAMES_OUT_PER_FRAME = 2;
  /** A reply is at most the frame it answers plus one DNS answer or TCP option's worth of headers. */
  const bytesOutBound = (framesIn: number, bytesIn: number) => 2 * bytesIn + 96 * framesIn;

  const arpRequest = serializeEthernetFrame({
    dst: BROADCAST_MAC,
    src: GUEST_MAC,
    ethertype: ETHERTYPE_ARP,
    payload: serializeArpPacket({
      op: ARP_REQUEST,
      senderMac: GUEST_MAC,
      senderIp: GUEST_IP,
      targetMac: new Uint8Array(6),
      targetIp: PEER_IP,
    }),
  });
  const dnsQuery = Uint8Array.of(
    0,
    1,
    1,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    7,
    0x65,
    0x78,
    0x61,
    0x6d,
    0x70,
    0x6c,
    0x65,
    3,
    0x63,
    0x6f,
    0x6d,
    0,
    0,
    1,
    0,
    1,
  );
  const valid = [
    arpRequest,
    guestPingFrame(1, 1, new Uint8Array(56)),
    guestUdpFrame({ srcPort: 1000, dstPort: 53, payload: dnsQuery }),
    guestUdpFrame({ srcPort: 1000, dstPort: 9, payload: new Uint8Array(20) }),
    guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq: 1, ack: 0, flags: TCP_SYN, mss: 1460 }),
    guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq: 2, ack: 5001, flags: TCP_ACK | TCP_PSH }, new Uint8Array(100)),
    guestTcpFrame({ srcPort: 40001, dstPort: 80, seq: 1, ack: 0, flags: TCP_SYN }, new Uint8Array(0), parseIpv4Address("93.184.216.34")),
  ];

  const edit = fc.record({
    op: fc.constantFrom("flip", "set", "insert", "delete", "cut"),
    at: fc.nat(),
    value: fc.integer({ min: 0, max: 255 }),
  });
  const mutated = fc.tuple(fc.constantFrom(...valid), fc.array(edit, { minLength: 1, maxLength: 5 })).map(([frame, edits]) => {
    let bytes = [...frame];
    for (const e of edits) {
      if (bytes.length === 0) break;
      const at = e.at % bytes.length;
      if (e.op === "flip") bytes[at] = bytes[at]! ^ (1 << (e.value & 7));
      else if (e.op === "set") bytes[at] = e.value;
      else if (e.op === "insert") bytes.splice(at, 0, e.value);
      else if (e.op === "delete") bytes.splice(at, 1);
      else bytes = bytes.slice(0, at);
    }
    return Uint8Array.from(bytes);
  });
  /** Well-formed TCP segments with any flags, numbers, window, options and payload: checksums right, so they reach TCP. */
  const segment = fc
    .record({
      srcPort: fc.constantFrom(40000, 40001),
      dstPort: fc.constantFrom(3128, 3128, 8080),
      seq: fc.nat({ max: 0xffffffff }),
      ack: fc.oneof(fc.constant(5001), fc.nat({ max: 0xffffffff })),
      flags: fc.integer({ min: 0, max: 0x3f }),
      window: fc.nat({ max: 0xffff }),
      mss: fc.option(fc.integer({ min: 0, max: 0xffff }), { nil: undefined }),
      payload: fc.uint8Array({ maxLength: 300 }),
    })
    .map(({ payload, mss, ...fields }) => guestTcpFrame(mss === undefined ? fields : { ...fields, mss }, payload));
  const frame = fc.oneof(fc.uint8Array({ maxLength: 200 }), mutated, segment);

  it("any sequence of random, mutated or well-formed frames: no exception, every unusable one logged, bounded replies", () => {
    fc.assert(
      fc.property(fc.array(frame, { minLength: 1, maxLength: 40 }), (frames) => {
        const { peer, deliver, log } = createScriptedPeer();
        peer.listen(3128, () => undefined); // accepted streams are left alone: the peer alone answers
        for (const f of frames) expect(() => deliver(f)).not.toThrow();
        const c = peer.counters;
        expect(c.errors).toBe(0);
        expect(log.ofKind("note")).toEqual([]);
        expect(log.ofKind("wire.malformed")).toHaveLength(c.malformed);
        expect(c.framesIn).toBe(frames.length);
        expect(c.framesOut).toBeLessThanOrEqual(MAX_FRAMES_OUT_PER_FRAME * c.framesIn);
        expect(c.bytesOut).toBeLessThanOrEqual(bytesOutBound(c.framesIn, c.bytesIn));
        expect(peer.connectionCount).toBeLessThanOrEqual(frames.length);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("an established connection fed hostile segments near its window: no exception, bounded replies, no more data than sent", async () => {
    const near = fc.record({
      offset: fc.integer({ min: -2000, max: 70_000 }),
      ack: fc.oneof(fc.constant(5001), fc.integer({ min: 4000, max: 6000 }), fc.nat({ max: 0xffffffff })),
      flags: fc.oneof(fc.constant(TCP_ACK), fc.constant(TCP_ACK | TCP_PSH), fc.integer({ min: 0, max: 0x3f })),
      window: fc.nat({ max: 0xffff }),
      payload: fc.uint8Array({ maxLength: 1460 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(near, { minLength: 1, maxLength: 40 }), async (segments) => {
        const { peer, deliver, log } = createScriptedPeer();
        const received: number[] = [];
        peer.listen(3128, (stream) => {
          void stream.readable.pipeTo(new WritableStream({ write: (chunk) => void received.push(chunk.length) })).catch(() => undefined);
        });
        deliver(guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq: 100, ack: 0, flags: TCP_SYN, mss: 1460 }));
        deliver(guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq: 101, ack: 5001, flags: TCP_ACK }));
        expect(peer.counters.connectionsOpened).toBe(1);
        let sent = 0;
        for (const s of segments) {
          const seq = (101 + s.offset + 2 ** 32) % 2 ** 32;
          sent += s.payload.length;
          expect(() =>
            deliver(guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq, ack: s.ack, flags: s.flags, window: s.window }, s.payload)),
          ).not.toThrow();
        }
        await new Promise((resolve) => setTimeout(resolve, 0)); // let the stream deliver what it accepted
        const c = peer.counters;
        expect(c.errors).toBe(0);
        expect(log.ofKind("note")).toEqual([]);
        expect(c.framesOut).toBeLessThanOrEqual(MAX_FRAMES_OUT_PER_FRAME * c.framesIn);
        expect(c.bytesOut).toBeLessThanOrEqual(bytesOutBound(c.framesIn, c.bytesIn));
        expect(received.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(sent);
      }),
      { seed: SEED, numRuns: 150 },
    );
  });
});

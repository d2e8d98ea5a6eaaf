import { describe, expect, it } from "vitest";
import { TCP_ACK, TCP_SYN } from "./tcp-segment";
import { seededRandom } from "./testing/fake-wire";
import { createScriptedPeer, guestPingFrame, guestTcpFrame, guestUdpFrame } from "./testing/scripted";

describe("the peer never throws on hostile frames (issue 4: malformed frames are counted and logged)", () => {
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

import { describe, expect, it } from "vitest";
import { fromHex } from "../bytes";
import { parseArpPacket, serializeArpPacket } from "./arp";
import { internetChecksum } from "./checksum";
import { parseEthernetFrame, serializeEthernetFrame } from "./ethernet";
import { parseIcmpMessage, serializeIcmpMessage } from "./icmp";
import { parseIpv4Packet, serializeIpv4Packet } from "./ipv4";
import { MalformedFrame } from "./malformed";
import { parseTcpSegment, serializeTcpSegment, TCP_ACK, TCP_SYN } from "./tcp-segment";
import { seededRandom } from "./testing/fake-wire";
import { parseUdpDatagram, serializeUdpDatagram } from "./udp";

const GUEST = 0x0a00020f; // 10.0.2.15
const PEER = 0x0a000202; // 10.0.2.2

/** An ARP request from the guest, as it appears on the wire ("answers ARP"). */
// biome-ignore format: one line per field
const arpRequest = new Uint8Array([
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // Ethernet destination: broadcast
  0x02, 0x00, 0x00, 0x00, 0x00, 0x15, // Ethernet source: the guest
  0x08, 0x06, //                         ethertype ARP
  0x00, 0x01, //                         hardware type Ethernet
  0x08, 0x00, //                         protocol type IPv4
  0x06, 0x04, //                         hardware and protocol address lengths
  0x00, 0x01, //                         operation: request
  0x02, 0x00, 0x00, 0x00, 0x00, 0x15, // sender MAC
  0x0a, 0x00, 0x02, 0x0f, //             sender IP 10.0.2.15
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // target MAC (unknown)
  0x0a, 0x00, 0x02, 0x02, //             target IP 10.0.2.2
]);

/** A SYN from 10.0.2.15:40000 to 10.0.2.2:3128 with the options Linux sends. */
// biome-ignore format: one line per field
const synSegment = new Uint8Array([
  0x9c, 0x40, //             source port 40000
  0x0c, 0x38, //             destination port 3128
  0x00, 0x00, 0x03, 0xe8, // sequence number 1000
  0x00, 0x00, 0x00, 0x00, // acknowledgement number 0
  0xa0, //                   data offset 10 words (40 bytes)
  0x02, //                   flags SYN
  0xfa, 0xf0, //             window 64240
  0x00, 0x00, //             checksum (filled in below)
  0x00, 0x00, //             urgent pointer
  0x02, 0x04, 0x05, 0xb4, // MSS 1460
  0x04, 0x02, //             SACK permitted
  0x08, 0x0a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // timestamps
  0x01, //                   no-op
  0x03, 0x03, 0x07, //       window scale 7
]);

function withTcpChecksum(segment: Uint8Array, src: number, dst: number): Uint8Array {
  const out = segment.slice();
  const pseudo = new Uint8Array(12 + out.length);
  new DataView(pseudo.buffer).setUint32(0, src);
  new DataView(pseudo.buffer).setUint32(4, dst);
  pseudo[9] = 6;
  new DataView(pseudo.buffer).setUint16(10, out.length);
  pseudo.set(out, 12);
  new DataView(out.buffer).setUint16(16, internetChecksum(pseudo));
  return out;
}

describe("Ethernet and ARP codecs (codecs as parse/serialize pairs)", () => {
  it("parses the guest's ARP request field by field", () => {
    const eth = parseEthernetFrame(arpRequest);
    expect(eth.ethertype).toBe(0x0806);
    const arp = parseArpPacket(eth.payload);
    expect(arp).toMatchObject({ op: 1, senderIp: GUEST, targetIp: PEER });
    expect(Array.from(arp.senderMac)).toEqual([0x02, 0, 0, 0, 0, 0x15]);
  });

  it("serializes back to the same bytes", () => {
    const eth = parseEthernetFrame(arpRequest);
    const again = serializeEthernetFrame({ ...eth, payload: serializeArpPacket(parseArpPacket(eth.payload)) });
    expect(again).toEqual(arpRequest);
  });

  it.each([
    ["a frame shorter than an Ethernet header", () => parseEthernetFrame(new Uint8Array(13)), /truncated Ethernet header/],
    ["an ARP packet cut short", () => parseArpPacket(arpRequest.subarray(14, 30)), /truncated ARP/],
    [
      "ARP for a protocol other than IPv4",
      () => parseArpPacket(Uint8Array.of(0, 1, 0x86, 0xdd, 6, 4, ...new Array(22).fill(0))),
      /not IPv4 over Ethernet/,
    ],
  ])("refuses %s with a reason", (_name, parse, reason) => {
    expect(parse).toThrow(MalformedFrame);
    expect(parse).toThrow(reason);
  });
});

describe("IPv4 and ICMP codecs", () => {
  /** A ping from the guest: IPv4 header then ICMP echo request. */
  const ping = fromHex(
    [
      "45", //       version 4, header length 5 words
      "00", //       TOS
      "0024", //     total length 36
      "1234", //     identification
      "4000", //     flags DF, fragment offset 0
      "40", //       TTL 64
      "01", //       protocol ICMP
      "0000", //     header checksum (filled in below)
      "0a00020f", // source 10.0.2.15
      "0a000202", // destination 10.0.2.2
      "08", //       ICMP type 8: echo request
      "00", //       code 0
      "0000", //     ICMP checksum (filled in below)
      "0007", //     identifier 7
      "0001", //     sequence 1
      "70696e6770696e67", // data "pingping"
    ].join(""),
  );
  new DataView(ping.buffer).setUint16(10, internetChecksum(ping, 0, 20));
  new DataView(ping.buffer).setUint16(22, internetChecksum(ping, 20));

  it("parses a ping and verifies both checksums", () => {
    const ip = parseIpv4Packet(ping);
    expect(ip).toMatchObject({ protocol: 1, src: GUEST, dst: PEER, ttl: 64, id: 0x1234, dontFragment: true });
    const icmp = parseIcmpMessage(ip.payload);
    expect(icmp).toMatchObject({ type: 8, code: 0, rest: 0x00070001 });
    expect(new TextDecoder().decode(icmp.data)).toBe("pingping");
  });

  it("round-trips through the serializers", () => {
    const ip = parseIpv4Packet(ping);
    const again = serializeIpv4Packet(
      { src: ip.src, dst: ip.dst, protocol: ip.protocol, id: ip.id },
      serializeIcmpMessage(parseIcmpMessage(ip.payload)),
    );
    expect(again).toEqual(ping);
  });

  it("trims Ethernet padding using the total length", () => {
    const padded = new Uint8Array(ping.length + 10);
    padded.set(ping);
    expect(parseIpv4Packet(padded).payload.length).toBe(16);
  });

  const mutate = (at: number, value: number): Uint8Array => {
    const copy = ping.slice();
    copy[at] = value;
    return copy;
  };
  it.each([
    ["a wrong header checksum", mutate(11, ping[11]! ^ 0xff), /IPv4 header checksum mismatch/, "malformed-frame"],
    ["IP version 6 in the version field", mutate(0, 0x65), /IP version 6/, "malformed-frame"],
    ["a total length longer than the frame", mutate(3, 0xff), /total length/, "malformed-frame"],
  ])("refuses a packet with %s", (_name, bytes, reason, code) => {
    expect(() => parseIpv4Packet(bytes)).toThrow(reason);
    try {
      parseIpv4Packet(bytes);
    } catch (error) {
      expect((error as MalformedFrame).code).toBe(code);
    }
  });

  it("refuses a fragment with the fragment-refused code (fragments refused with a logged reason)", () => {
    const fragment = ping.slice();
    fragment[6] = 0x20; // more fragments
    new DataView(fragment.buffer).setUint16(10, 0);
    new DataView(fragment.buffer).setUint16(10, internetChecksum(fragment, 0, 20));
    expect(() => parseIpv4Packet(fragment)).toThrow(expect.objectContaining({ code: "fragment-refused" }));
  });

  it("refuses an ICMP message whose checksum is wrong", () => {
    const bad = parseIpv4Packet(ping).payload.slice();
    bad[8] = 0;
    expect(() => parseIcmpMessage(bad)).toThrow(/ICMP checksum mismatch/);
  });
});

describe("UDP and TCP codecs (checksums verified both ways)", () => {
  it("parses a UDP datagram and its pseudo-header checksum", () => {
    const bytes = serializeUdpDatagram({ srcPort: 5353, dstPort: 53, payload: Uint8Array.of(1, 2, 3) }, GUEST, PEER);
    // biome-ignore format: one line per field
    const header = [
      0x14, 0xe9, // source port 5353
      0x00, 0x35, // destination port 53
      0x00, 0x0b, // length 11
    ];
    expect(Array.from(bytes.subarray(0, 6))).toEqual(header);
    expect(parseUdpDatagram(bytes, GUEST, PEER)).toMatchObject({ srcPort: 5353, dstPort: 53, payload: Uint8Array.of(1, 2, 3) });
    expect(() => parseUdpDatagram(bytes, GUEST, PEER + 1)).toThrow(/UDP checksum mismatch/);
  });

  it("accepts a UDP datagram sent without a checksum (0)", () => {
    const bytes = Uint8Array.of(0x14, 0xe9, 0x00, 0x35, 0x00, 0x09, 0x00, 0x00, 0x61);
    expect(parseUdpDatagram(bytes, GUEST, PEER).payload).toEqual(Uint8Array.of(0x61));
  });

  it("parses Linux's SYN: the MSS is read, SACK, timestamps and window scale are skipped", () => {
    const seg = parseTcpSegment(withTcpChecksum(synSegment, GUEST, PEER), GUEST, PEER);
    expect(seg).toMatchObject({ srcPort: 40000, dstPort: 3128, seq: 1000, ack: 0, flags: TCP_SYN, window: 64240, mss: 1460 });
    expect(seg.payload.length).toBe(0);
  });

  it("refuses a TCP segment whose checksum does not match the pseudo-header", () => {
    expect(() => parseTcpSegment(withTcpChecksum(synSegment, GUEST, PEER), GUEST, PEER + 1)).toThrow(/TCP checksum mismatch/);
  });

  it.each([
    ["a window-scale option running past the header", 38, 0x08],
    ["a SACK-permitted option of length 0", 25, 0x00],
    ["an MSS option of length 3", 21, 0x03],
  ])("refuses %s", (_name, at, value) => {
    const bad = synSegment.slice();
    bad[at] = value;
    expect(() => parseTcpSegment(withTcpChecksum(bad, GUEST, PEER), GUEST, PEER)).toThrow(MalformedFrame);
  });

  it("round-trips random segments (property test, seeded)", () => {
    const random = seededRandom(99);
    for (let i = 0; i < 200; i++) {
      const fields = {
        srcPort: Math.floor(random() * 65536),
        dstPort: Math.floor(random() * 65536),
        seq: Math.floor(random() * 2 ** 32),
        ack: Math.floor(random() * 2 ** 32),
        flags: Math.floor(random() * 64),
        window: Math.floor(random() * 65536),
        mss: random() < 0.5 ? Math.floor(random() * 65536) : null,
      };
      const payload = Uint8Array.from({ length: Math.floor(random() * 1500) }, () => Math.floor(random() * 256));
      const seg = parseTcpSegment(serializeTcpSegment(fields, payload, GUEST, PEER), GUEST, PEER);
      expect(seg).toEqual({ ...fields, urgent: 0, payload });
    }
  });

  it("computes the same checksum as a plain 16-bit sum at every odd and even length", () => {
    const random = seededRandom(5);
    for (let length = 0; length < 70; length++) {
      const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      let sum = 0;
      for (let i = 0; i < length; i += 2) sum += (bytes[i]! << 8) | (bytes[i + 1] ?? 0);
      while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
      expect(internetChecksum(bytes)).toBe(~sum & 0xffff);
    }
  });

  it("sets ACK and SYN as the SYN-ACK flags byte 0x12", () => {
    const bytes = serializeTcpSegment(
      { srcPort: 1, dstPort: 2, seq: 0, ack: 0, flags: TCP_SYN | TCP_ACK, window: 0 },
      new Uint8Array(0),
      PEER,
      GUEST,
    );
    expect(bytes[13]).toBe(0x12);
  });
});

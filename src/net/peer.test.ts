import { describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import { createEventLog } from "../log";
import { serializeArpPacket } from "./arp";
import { ETHERTYPE_ARP, serializeEthernetFrame } from "./ethernet";
import { createNetworkPeer } from "./peer";
import { TCP_ACK, TCP_RST, TCP_SYN } from "./tcp-segment";
import {
  createScriptedPeer,
  decodeFrame,
  GUEST_IP,
  GUEST_MAC,
  guestPingFrame,
  guestTcpFrame,
  guestUdpFrame,
  PEER_IP,
  PEER_MAC,
} from "./testing/scripted";
import { connectV86Link, type V86Bus } from "./v86-link";

const arpWhoHas = (targetIp: number): Uint8Array =>
  serializeEthernetFrame({
    dst: new Uint8Array(6).fill(0xff),
    src: GUEST_MAC,
    ethertype: ETHERTYPE_ARP,
    payload: serializeArpPacket({ op: 1, senderMac: GUEST_MAC, senderIp: GUEST_IP, targetMac: new Uint8Array(6), targetIp }),
  });

/** A DNS query for `name` type A, as the guest's resolver sends it. */
function dnsQuery(name: string, type = 1): Uint8Array {
  const labels = name.split(".").flatMap((l) => [l.length, ...utf8(l)]);
  // biome-ignore format: one line per field
  return Uint8Array.of(
    0xbe, 0xef, // id
    0x01, 0x00, // flags: standard query, recursion desired
    0x00, 0x01, // one question
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // no answer, authority, additional records
    ...labels, 0x00, // the name
    0x00, type, // type
    0x00, 0x01, // class IN
  );
}

describe("the peer at 10.0.2.2", () => {
  it("answers ARP for its own address with its MAC and learns the guest's MAC", () => {
    const { peer, deliver, take, log } = createScriptedPeer();
    deliver(arpWhoHas(PEER_IP));
    const [reply] = take();
    expect(reply?.arp).toMatchObject({ op: 2, senderIp: PEER_IP, targetIp: GUEST_IP });
    expect(Array.from(reply!.arp!.senderMac)).toEqual(Array.from(PEER_MAC));
    expect(Array.from(reply!.eth.dst)).toEqual(Array.from(GUEST_MAC));
    expect(peer.guestMac).toBe("02:00:00:00:00:15");
    expect(log.ofKind("wire.frame").map((e) => e.summary)).toEqual([
      "ARP who-has 10.0.2.2 tell 10.0.2.15",
      "ARP 10.0.2.2 is-at 52:54:00:00:02:02",
    ]);
  });

  it("stays silent on ARP for any other address", () => {
    const { deliver, take } = createScriptedPeer();
    deliver(arpWhoHas(PEER_IP + 1));
    expect(take()).toEqual([]);
  });

  it("answers a ping to itself with the same id, sequence and data", () => {
    const { deliver, take } = createScriptedPeer();
    deliver(guestPingFrame(7, 3, utf8("hello")));
    const [reply] = take();
    expect(reply?.icmp).toMatchObject({ type: 0, code: 0, rest: (7 << 16) | 3, data: utf8("hello") });
    expect(reply?.ip).toMatchObject({ src: PEER_IP, dst: GUEST_IP });
  });

  it("does not answer a ping to the outside and logs a no-route verdict", () => {
    const { deliver, take, log } = createScriptedPeer();
    deliver(guestPingFrame(7, 1, utf8("x"), 0x08080808));
    expect(take()).toEqual([]);
    expect(log.ofKind("wire.verdict")).toEqual([
      expect.objectContaining({ target: "8.8.8.8", code: "no-route", by: "wire", allowed: false }),
    ]);
  });

  it("answers DNS REFUSED by default and logs the query's name and type (under a ports-only policy the DNS query stays visible)", () => {
    const { deliver, take, log, peer } = createScriptedPeer();
    deliver(guestUdpFrame({ srcPort: 33333, dstPort: 53, payload: dnsQuery("api.github.com") }));
    const [reply] = take();
    expect(reply?.udp).toMatchObject({ srcPort: 53, dstPort: 33333 });
    const response = reply!.udp!.payload;
    expect(Array.from(response.subarray(0, 4))).toEqual([0xbe, 0xef, 0x81, 0x05]); // id; QR, RD, rcode 5 REFUSED
    expect(log.ofKind("wire.dns")).toEqual([expect.objectContaining({ name: "api.github.com", type: "A", answer: "REFUSED", rcode: 5 })]);
    expect(peer.counters.dnsQueries).toBe(1);
  });

  it("answers DNS from an injected (async) policy", async () => {
    const { deliver, take, log } = createScriptedPeer({
      dns: async ({ name }) => ({ rcode: "noerror", addresses: [name === "proxy.tab" ? "10.0.2.2" : "0.0.0.0"] }),
    });
    deliver(guestUdpFrame({ srcPort: 4000, dstPort: 53, payload: dnsQuery("proxy.tab") }));
    await Promise.resolve();
    await Promise.resolve();
    const [reply] = take();
    const response = reply!.udp!.payload;
    expect(Array.from(response.subarray(-4))).toEqual([10, 0, 2, 2]); // the A record's address
    expect(Array.from(response.subarray(6, 8))).toEqual([0, 1]); // one answer
    expect(log.ofKind("wire.dns")[0]).toMatchObject({ answer: "NOERROR A 10.0.2.2", rcode: 0 });
  });

  it.each([
    ["UDP to the peer on a port with no service", PEER_IP, 9999, 3],
    ["UDP to an address outside the tab", 0x08080808, 53, 1],
  ])("answers %s with ICMP unreachable (code %#)", (_name, dst, port, code) => {
    const { deliver, take } = createScriptedPeer();
    deliver(guestUdpFrame({ srcPort: 5000, dstPort: port, payload: utf8("q") }, dst));
    const [reply] = take();
    expect(reply?.icmp).toMatchObject({ type: 3, code });
  });

  it("refuses a SYN to another address with RST and a no-route verdict by wire", () => {
    const { deliver, take, log } = createScriptedPeer();
    deliver(guestTcpFrame({ srcPort: 40000, dstPort: 443, seq: 100, ack: 0, flags: TCP_SYN }, undefined, 0x5db8d822));
    const [rst] = take();
    expect(rst?.tcp).toMatchObject({ flags: TCP_RST | TCP_ACK, ack: 101, srcPort: 443, dstPort: 40000 });
    expect(rst?.ip?.src).toBe(0x5db8d822);
    expect(log.ofKind("wire.verdict")[0]).toMatchObject({
      target: "93.184.216.34:443",
      code: "no-route",
      reason: expect.stringMatching(/no route out of the tab/),
    });
  });

  it("answers a stray ACK for no connection with a RST at its ack number", () => {
    const { deliver, take } = createScriptedPeer();
    deliver(guestTcpFrame({ srcPort: 40000, dstPort: 3128, seq: 100, ack: 777, flags: TCP_ACK }));
    expect(take()[0]?.tcp).toMatchObject({ flags: TCP_RST, seq: 777 });
  });

  it("ignores frames for other MACs and counts them", () => {
    const { deliver, take, peer } = createScriptedPeer();
    const frame = guestPingFrame(1, 1, utf8("x"));
    frame.set([0x33, 0x33, 0, 0, 0, 1], 0); // IPv6 multicast MAC
    deliver(frame);
    expect(take()).toEqual([]);
    expect(peer.counters.ignored).toBe(1);
  });

  it("counts frames and bytes both ways", () => {
    const { deliver, peer } = createScriptedPeer();
    const ping = guestPingFrame(1, 1, utf8("abc"));
    deliver(ping);
    expect(peer.counters).toMatchObject({ framesIn: 1, framesOut: 1, bytesIn: ping.length, bytesOut: ping.length, malformed: 0 });
  });
});

describe("the v86 link (a thin link that knows the bus names)", () => {
  function fakeBus() {
    const listeners = new Map<string, (data: Uint8Array) => void>();
    const received: Uint8Array[] = [];
    const bus: V86Bus = {
      register: (name, fn) => listeners.set(name, fn),
      send: (name, data) => {
        if (name === "net0-receive") received.push(data);
      },
    };
    return { bus, received, guestSends: (frame: Uint8Array) => listeners.get("net0-send")?.(frame) };
  }

  it("takes frames from net0-send, including views at an offset as v86 delivers them, and answers on net0-receive", () => {
    const { bus, received, guestSends } = fakeBus();
    const peer = createNetworkPeer({ link: connectV86Link(bus), log: createEventLog() });
    const ping = guestPingFrame(1, 1, utf8("v86"));
    const withVirtioHeader = new Uint8Array(12 + ping.length);
    withVirtioHeader.set(ping, 12);
    guestSends(withVirtioHeader.subarray(12)); // virtio-net: h.subarray(12)
    expect(received).toHaveLength(1);
    expect(decodeFrame(received[0]!).icmp).toMatchObject({ type: 0, data: utf8("v86") });
    peer.close();
    guestSends(ping);
    expect(received).toHaveLength(1);
  });
});

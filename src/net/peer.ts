import type { EventLog } from "../log";
import { refuse } from "../log";
import { systemTimers, type Timers } from "../platform";
import {
  BROADCAST_MAC,
  formatIpv4Address,
  formatMacAddress,
  type Ipv4Address,
  parseIpv4Address,
  parseMacAddress,
  sameMac,
} from "./address";
import { ARP_REPLY, ARP_REQUEST, type ArpPacket, parseArpPacket, serializeArpPacket } from "./arp";
import { createCounters, type NetCounters } from "./counters";
import {
  type DnsAnswer,
  type DnsPolicy,
  type DnsQuery,
  describeDnsAnswer,
  dnsResponseFor,
  dnsTypeName,
  parseDnsQuery,
  refuseAllDns,
  serializeDnsResponse,
} from "./dns";
import { ETHERTYPE_ARP, ETHERTYPE_IPV4, parseEthernetFrame, serializeEthernetFrame } from "./ethernet";
import { type Ipv4Route, ipv4Frame } from "./frame";
import { ICMP_DESTINATION_UNREACHABLE, ICMP_ECHO_REPLY, ICMP_ECHO_REQUEST, parseIcmpMessage, serializeIcmpMessage } from "./icmp";
import { IPV4_HEADER_LENGTH, type Ipv4Packet, PROTOCOL_ICMP, PROTOCOL_TCP, PROTOCOL_UDP, parseIpv4Packet } from "./ipv4";
import type { FrameLink } from "./link";
import { MalformedFrame } from "./malformed";
import { observeLink } from "./observe";
import { type AcceptHandler, type ConnectionInfo, createTcpLayer } from "./tcp";
import { DEFAULT_TCP_CONFIG, type TcpConfig } from "./tcp-host";
import { parseUdpDatagram, serializeUdpDatagram, type UdpDatagram } from "./udp";

/** Addresses on the wire. The guest uses a static address (no DHCP). */
export interface NetworkConfig {
  /** The page's address: the guest's gateway, DNS server and proxy host. */
  peerIp: string;
  peerMac: string;
  /** The guest's address (documentation and sanity: the peer answers whoever asks). */
  guestIp: string;
  /** The wire's MTU; our MSS is MTU - 40. */
  mtu: number;
}

export const DEFAULT_NETWORK_CONFIG: NetworkConfig = {
  peerIp: "10.0.2.2",
  peerMac: "52:54:00:00:02:02",
  guestIp: "10.0.2.15",
  mtu: 1500,
};

export interface NetworkPeerOptions {
  link: FrameLink;
  log: EventLog;
  config?: Partial<NetworkConfig>;
  timers?: Timers;
  /** How DNS queries are answered; default `refuseAllDns` (REFUSED, logged). */
  dns?: DnsPolicy;
  /** TCP tunables (tests shrink timers and buffers). */
  tcp?: Partial<TcpConfig>;
  /** Initial sequence numbers; default random. */
  isn?: () => number;
}

export interface NetworkPeer {
  /** Accepts TCP connections to peerIp:port; returns the function that stops listening. */
  listen(port: number, onAccept: AcceptHandler): () => void;
  /** Live counters (frames, bytes, malformed, TCP segments, connections, DNS queries). */
  readonly counters: Readonly<NetCounters>;
  readonly config: Readonly<NetworkConfig>;
  /** The guest's MAC as learned from its frames ("aa:bb:..."), or null before its first frame. */
  readonly guestMac: string | null;
  readonly connectionCount: number;
  /** The live TCP connections with their states and byte counts. */
  connections(): ConnectionInfo[];
  /** Resets every connection, stops listening to the link, stops all timers. */
  close(): void;
}

const randomIsn = (): number => crypto.getRandomValues(new Uint32Array(1))[0]!;

/**
 * The guest's only network peer: answers ARP for its address and pings to it, serves DNS on
 * UDP/53 by policy, and is a real TCP endpoint for the page's listeners. Anything else gets a
 * logged `no-route` verdict and a fast failure (RST, ICMP unreachable). Malformed frames are
 * counted and logged; nothing a frame contains can make this throw.
 */
export function createNetworkPeer(options: NetworkPeerOptions): NetworkPeer {
  const config: NetworkConfig = { ...DEFAULT_NETWORK_CONFIG, ...options.config };
  const peerIp = parseIpv4Address(config.peerIp);
  parseIpv4Address(config.guestIp);
  const peerMac = parseMacAddress(config.peerMac);
  if (!Number.isInteger(config.mtu) || config.mtu < 576 || config.mtu > 9000) throw new RangeError(`MTU out of range: ${config.mtu}`);
  const { log } = options;
  const timers = options.timers ?? systemTimers;
  const dns = options.dns ?? refuseAllDns;
  const counters = createCounters();
  const wire = observeLink(options.link, log, counters);
  let guestMac: Uint8Array | null = null;
  let ipId = 0;
  let closed = false;

  const route = (src: Ipv4Address, dst: Ipv4Address): Ipv4Route => ({ srcMac: peerMac, dstMac: guestMac ?? BROADCAST_MAC, src, dst });
  const nextIpId = (): number => (ipId = (ipId + 1) & 0xffff);
  const send = (frame: Uint8Array): void => {
    if (!closed) wire.send(frame);
  };

  const tcp = createTcpLayer({
    config: { ...DEFAULT_TCP_CONFIG, mss: config.mtu - 40, ...options.tcp },
    timers,
    counters,
    log,
    localIp: peerIp,
    route,
    nextIpId,
    isn: options.isn ?? randomIsn,
    send,
  });

  function receive(frame: Uint8Array): void {
    if (closed) return;
    try {
      handleFrame(frame);
    } catch (error) {
      if (error instanceof MalformedFrame) {
        counters.malformed++;
        log.append({ kind: "wire.malformed", reason: error.reason, code: error.code, bytes: frame.length });
      } else {
        counters.errors++;
        log.append({
          kind: "note",
          level: "error",
          source: "proxy",
          message: `the peer failed on a ${frame.length}-byte frame: ${String(error)}`,
        });
      }
    }
  }

  function handleFrame(frame: Uint8Array): void {
    const eth = parseEthernetFrame(frame);
    if (!sameMac(eth.dst, 0, peerMac) && !sameMac(eth.dst, 0, BROADCAST_MAC)) {
      counters.ignored++; // multicast (IPv6 neighbour discovery, IGMP) and frames for others
      return;
    }
    if (guestMac === null || !sameMac(eth.src, 0, guestMac)) guestMac = eth.src.slice();
    if (eth.ethertype === ETHERTYPE_ARP) handleArp(parseArpPacket(eth.payload));
    else if (eth.ethertype === ETHERTYPE_IPV4) handleIpv4(parseIpv4Packet(eth.payload), eth.payload);
    else throw new MalformedFrame(`unknown ethertype 0x${eth.ethertype.toString(16).padStart(4, "0")}`);
  }

  function handleArp(arp: ArpPacket): void {
    if (arp.op !== ARP_REQUEST || arp.targetIp !== peerIp) return; // only "who has the peer?" needs an answer
    const reply = serializeArpPacket({
      op: ARP_REPLY,
      senderMac: peerMac,
      senderIp: peerIp,
      targetMac: arp.senderMac,
      targetIp: arp.senderIp,
    });
    send(serializeEthernetFrame({ dst: arp.senderMac, src: peerMac, ethertype: ETHERTYPE_ARP, payload: reply }));
  }

  function handleIpv4(packet: Ipv4Packet, raw: Uint8Array): void {
    if (packet.protocol === PROTOCOL_TCP) tcp.receive(packet);
    else if (packet.protocol === PROTOCOL_UDP) handleUdp(packet, parseUdpDatagram(packet.payload, packet.src, packet.dst), raw);
    else if (packet.protocol === PROTOCOL_ICMP) handleIcmp(packet);
    else counters.ignored++;
  }

  function handleIcmp(packet: Ipv4Packet): void {
    const message = parseIcmpMessage(packet.payload);
    if (message.type !== ICMP_ECHO_REQUEST) return;
    if (packet.dst !== peerIp) {
      noRoute(`${formatIpv4Address(packet.dst)}`, `no route out of the tab: ping to ${formatIpv4Address(packet.dst)} is not answered`);
      return;
    }
    const reply = serializeIcmpMessage({ type: ICMP_ECHO_REPLY, code: 0, rest: message.rest, data: message.data });
    send(ipv4Frame(route(peerIp, packet.src), PROTOCOL_ICMP, nextIpId(), reply));
  }

  function handleUdp(packet: Ipv4Packet, datagram: UdpDatagram, raw: Uint8Array): void {
    if (packet.dst === peerIp && datagram.dstPort === 53) {
      handleDns(packet, datagram);
      return;
    }
    if (packet.dst !== peerIp) {
      const target = `${formatIpv4Address(packet.dst)}:${datagram.dstPort}`;
      noRoute(target, `no route out of the tab: UDP to ${target}`);
    }
    // ICMP unreachable (RFC 1122 §3.2.2.1) so the guest's resolver or client fails fast.
    const code = packet.dst === peerIp ? 3 : 1; // port unreachable : host unreachable
    const quoted = raw.subarray(0, Math.min(raw.length, IPV4_HEADER_LENGTH + 8));
    const error = serializeIcmpMessage({ type: ICMP_DESTINATION_UNREACHABLE, code, rest: 0, data: quoted });
    send(ipv4Frame(route(peerIp, packet.src), PROTOCOL_ICMP, nextIpId(), error));
  }

  function handleDns(packet: Ipv4Packet, datagram: UdpDatagram): void {
    counters.dnsQueries++;
    const query = parseDnsQuery(datagram.payload);
    const question = query.questions[0];
    if (!question) throw new MalformedFrame("DNS query without a question");
    const lookup = { name: question.name, type: dnsTypeName(question.type), typeCode: question.type };
    const reply = (answer: DnsAnswer): void => {
      try {
        answerDns(packet, datagram, query, answer);
      } catch (error) {
        counters.errors++;
        log.append({ kind: "note", level: "error", source: "net", message: `DNS answer failed: ${String(error)}` });
      }
    };
    let answer: DnsAnswer | Promise<DnsAnswer>;
    try {
      answer = dns(lookup);
    } catch {
      answer = { rcode: "servfail" };
    }
    if (answer instanceof Promise) answer.then(reply, () => reply({ rcode: "servfail" }));
    else reply(answer);
  }

  function answerDns(packet: Ipv4Packet, datagram: UdpDatagram, query: DnsQuery, answer: DnsAnswer): void {
    if (closed) return;
    let response = dnsResponseFor(query, { rcode: "servfail" });
    try {
      response = dnsResponseFor(query, answer);
    } catch {
      // A policy answer that does not encode (a bad address) is a server failure, not a crash.
    }
    const question = query.questions[0]!;
    log.append({
      kind: "wire.dns",
      name: question.name,
      type: dnsTypeName(question.type),
      answer: describeDnsAnswer(response),
      rcode: response.rcode,
    });
    const udp = serializeUdpDatagram(
      { srcPort: 53, dstPort: datagram.srcPort, payload: serializeDnsResponse(response) },
      peerIp,
      packet.src,
    );
    send(ipv4Frame(route(peerIp, packet.src), PROTOCOL_UDP, nextIpId(), udp));
  }

  function noRoute(target: string, reason: string): void {
    log.append({ kind: "wire.verdict", target, ...refuse("no-route", reason, "wire") });
  }

  const unsubscribe = wire.onFrame(receive);

  return {
    listen: (port, onAccept) => tcp.listen(port, onAccept),
    counters,
    config,
    get guestMac() {
      return guestMac ? formatMacAddress(guestMac) : null;
    },
    get connectionCount() {
      return tcp.connectionCount;
    },
    connections: () => tcp.connections(),
    close() {
      if (closed) return;
      tcp.close();
      closed = true;
      unsubscribe();
    },
  };
}

import { createEventLog, type EventLog } from "../../log";
import { fakeTimers } from "../../platform/testing/fake-timers";
import { parseIpv4Address, parseMacAddress } from "../address";
import { type ArpPacket, parseArpPacket } from "../arp";
import { ETHERTYPE_ARP, ETHERTYPE_IPV4, type EthernetFrame, parseEthernetFrame, serializeEthernetFrame } from "../ethernet";
import { type IcmpMessage, parseIcmpMessage, serializeIcmpMessage } from "../icmp";
import { type Ipv4Packet, PROTOCOL_ICMP, PROTOCOL_TCP, PROTOCOL_UDP, parseIpv4Packet, serializeIpv4Packet } from "../ipv4";
import type { FrameLink } from "../link";
import { createNetworkPeer, type NetworkPeer, type NetworkPeerOptions } from "../peer";
import { parseTcpSegment, serializeTcpSegment, type TcpHeaderFields, type TcpSegment } from "../tcp-segment";
import { parseUdpDatagram, serializeUdpDatagram, type UdpDatagram } from "../udp";

export const GUEST_MAC = parseMacAddress("02:00:00:00:00:15");
export const PEER_MAC = parseMacAddress("52:54:00:00:02:02");
export const GUEST_IP = parseIpv4Address("10.0.2.15");
export const PEER_IP = parseIpv4Address("10.0.2.2");

/** An IPv4 frame from the guest to `dst` (default: the peer). */
export function guestIpv4Frame(protocol: number, transport: Uint8Array, dst = PEER_IP): Uint8Array {
  const ip = serializeIpv4Packet({ src: GUEST_IP, dst, protocol, id: 1 }, transport);
  return serializeEthernetFrame({ dst: PEER_MAC, src: GUEST_MAC, ethertype: ETHERTYPE_IPV4, payload: ip });
}

export type GuestTcp = Omit<TcpHeaderFields, "window"> & { window?: number };

export function guestTcpFrame(fields: GuestTcp, payload: Uint8Array = new Uint8Array(0), dst = PEER_IP): Uint8Array {
  return guestIpv4Frame(PROTOCOL_TCP, serializeTcpSegment({ window: 65535, ...fields }, payload, GUEST_IP, dst), dst);
}

export function guestUdpFrame(datagram: UdpDatagram, dst = PEER_IP): Uint8Array {
  return guestIpv4Frame(PROTOCOL_UDP, serializeUdpDatagram(datagram, GUEST_IP, dst), dst);
}

export function guestPingFrame(id: number, sequence: number, data: Uint8Array, dst = PEER_IP): Uint8Array {
  return guestIpv4Frame(PROTOCOL_ICMP, serializeIcmpMessage({ type: 8, code: 0, rest: (id << 16) | sequence, data }), dst);
}

/** A frame the peer sent, decoded with the same codecs (which the codec tests pin to bytes). */
export interface DecodedFrame {
  eth: EthernetFrame;
  arp?: ArpPacket;
  ip?: Ipv4Packet;
  tcp?: TcpSegment;
  udp?: UdpDatagram;
  icmp?: IcmpMessage;
}

export function decodeFrame(frame: Uint8Array): DecodedFrame {
  const eth = parseEthernetFrame(frame);
  if (eth.ethertype === ETHERTYPE_ARP) return { eth, arp: parseArpPacket(eth.payload) };
  const ip = parseIpv4Packet(eth.payload);
  if (ip.protocol === PROTOCOL_TCP) return { eth, ip, tcp: parseTcpSegment(ip.payload, ip.src, ip.dst) };
  if (ip.protocol === PROTOCOL_UDP) return { eth, ip, udp: parseUdpDatagram(ip.payload, ip.src, ip.dst) };
  if (ip.protocol === PROTOCOL_ICMP) return { eth, ip, icmp: parseIcmpMessage(ip.payload) };
  return { eth, ip };
}

/**
 * A peer on a synchronous link driven by hand: `deliver` hands it a guest frame, `take()`
 * returns (and forgets) what it sent since, decoded.
 */
export function createScriptedPeer(options: Partial<NetworkPeerOptions> = {}) {
  const timers = fakeTimers();
  const log: EventLog = createEventLog({ clock: () => timers.now() });
  let receive: ((frame: Uint8Array) => void) | null = null;
  let sent: Uint8Array[] = [];
  const link: FrameLink = {
    onFrame(r) {
      receive = r;
      return () => {
        receive = null;
      };
    },
    send(frame) {
      sent.push(frame);
    },
  };
  const peer: NetworkPeer = createNetworkPeer({ link, log, timers, isn: () => 5000, ...options });
  return {
    peer,
    log,
    timers,
    deliver(frame: Uint8Array): void {
      receive?.(frame);
    },
    take(): DecodedFrame[] {
      const out = sent.map(decodeFrame);
      sent = [];
      return out;
    },
    takeRaw(): Uint8Array[] {
      const out = sent;
      sent = [];
      return out;
    },
  };
}

import type { Ipv4Address } from "./address";
import { ETHERTYPE_IPV4 } from "./ethernet";
import { MalformedFrame, need } from "./malformed";

export const ARP_REQUEST = 1;
export const ARP_REPLY = 2;
export const ARP_PACKET_LENGTH = 28;

/** An ARP packet for IPv4 over Ethernet (RFC 826); MACs are views into the parsed bytes. */
export interface ArpPacket {
  op: number;
  senderMac: Uint8Array;
  senderIp: Ipv4Address;
  targetMac: Uint8Array;
  targetIp: Ipv4Address;
}

export function parseArpPacket(bytes: Uint8Array): ArpPacket {
  need(bytes, ARP_PACKET_LENGTH, "ARP packet");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hardware = view.getUint16(0);
  const protocol = view.getUint16(2);
  if (hardware !== 1 || protocol !== ETHERTYPE_IPV4 || bytes[4] !== 6 || bytes[5] !== 4) {
    throw new MalformedFrame(`ARP for hardware ${hardware} protocol 0x${protocol.toString(16)} is not IPv4 over Ethernet`);
  }
  return {
    op: view.getUint16(6),
    senderMac: bytes.subarray(8, 14),
    senderIp: view.getUint32(14),
    targetMac: bytes.subarray(18, 24),
    targetIp: view.getUint32(24),
  };
}

export function serializeArpPacket(packet: ArpPacket): Uint8Array {
  const out = new Uint8Array(ARP_PACKET_LENGTH);
  const view = new DataView(out.buffer);
  view.setUint16(0, 1);
  view.setUint16(2, ETHERTYPE_IPV4);
  out[4] = 6;
  out[5] = 4;
  view.setUint16(6, packet.op);
  out.set(packet.senderMac.subarray(0, 6), 8);
  view.setUint32(14, packet.senderIp);
  out.set(packet.targetMac.subarray(0, 6), 18);
  view.setUint32(24, packet.targetIp);
  return out;
}

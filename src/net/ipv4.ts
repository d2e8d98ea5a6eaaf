import type { Ipv4Address } from "./address";
import { internetChecksum } from "./checksum";
import { MalformedFrame, need } from "./malformed";

export const IPV4_HEADER_LENGTH = 20;
export const PROTOCOL_ICMP = 1;
export const PROTOCOL_TCP = 6;
export const PROTOCOL_UDP = 17;

/** An unfragmented IPv4 packet (RFC 791). `payload` is a view, trimmed to the total length. */
export interface Ipv4Packet {
  tos: number;
  id: number;
  dontFragment: boolean;
  ttl: number;
  protocol: number;
  src: Ipv4Address;
  dst: Ipv4Address;
  payload: Uint8Array;
}

/**
 * Parses and verifies an IPv4 header: version, lengths, header checksum. Fragments are refused
 * (the peer never reassembles; the guest's path MTU is the wire's MTU, so none are expected).
 */
export function parseIpv4Packet(bytes: Uint8Array): Ipv4Packet {
  need(bytes, IPV4_HEADER_LENGTH, "IPv4 header");
  const version = bytes[0]! >>> 4;
  if (version !== 4) throw new MalformedFrame(`IP version ${version} in an IPv4 frame`);
  const headerLength = (bytes[0]! & 0x0f) * 4;
  if (headerLength < IPV4_HEADER_LENGTH) throw new MalformedFrame(`IPv4 header length ${headerLength} is below 20`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const totalLength = view.getUint16(2);
  if (totalLength < headerLength || totalLength > bytes.length) {
    throw new MalformedFrame(`IPv4 total length ${totalLength} does not fit the ${bytes.length} bytes received`);
  }
  if (internetChecksum(bytes, 0, headerLength) !== 0) throw new MalformedFrame("IPv4 header checksum mismatch");
  const flagsAndOffset = view.getUint16(6);
  const moreFragments = (flagsAndOffset & 0x2000) !== 0;
  const fragmentOffset = flagsAndOffset & 0x1fff;
  if (moreFragments || fragmentOffset !== 0) {
    throw new MalformedFrame(
      `IPv4 fragment (offset ${fragmentOffset * 8}, more=${moreFragments}) refused: the peer does not reassemble`,
      "fragment-refused",
    );
  }
  return {
    tos: bytes[1]!,
    id: view.getUint16(4),
    dontFragment: (flagsAndOffset & 0x4000) !== 0,
    ttl: bytes[8]!,
    protocol: bytes[9]!,
    src: view.getUint32(12),
    dst: view.getUint32(16),
    // Ethernet pads short frames to 60 bytes: the total length says where the packet ends.
    payload: bytes.subarray(headerLength, totalLength),
  };
}

export interface Ipv4HeaderFields {
  src: Ipv4Address;
  dst: Ipv4Address;
  protocol: number;
  id: number;
  ttl?: number;
  tos?: number;
}

/** Writes a 20-byte header (DF set, no options) with its checksum at `offset` of `out`. */
export function writeIpv4Header(out: Uint8Array, offset: number, fields: Ipv4HeaderFields, payloadLength: number): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[offset] = 0x45;
  out[offset + 1] = fields.tos ?? 0;
  view.setUint16(offset + 2, IPV4_HEADER_LENGTH + payloadLength);
  view.setUint16(offset + 4, fields.id & 0xffff);
  view.setUint16(offset + 6, 0x4000);
  out[offset + 8] = fields.ttl ?? 64;
  out[offset + 9] = fields.protocol;
  view.setUint16(offset + 10, 0);
  view.setUint32(offset + 12, fields.src);
  view.setUint32(offset + 16, fields.dst);
  view.setUint16(offset + 10, internetChecksum(out, offset, IPV4_HEADER_LENGTH));
}

export function serializeIpv4Packet(fields: Ipv4HeaderFields, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(IPV4_HEADER_LENGTH + payload.length);
  writeIpv4Header(out, 0, fields, payload.length);
  out.set(payload, IPV4_HEADER_LENGTH);
  return out;
}

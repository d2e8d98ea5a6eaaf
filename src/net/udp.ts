import type { Ipv4Address } from "./address";
import { finishChecksum, onesComplementSum, pseudoHeaderSum } from "./checksum";
import { PROTOCOL_UDP } from "./ipv4";
import { MalformedFrame, need } from "./malformed";

export const UDP_HEADER_LENGTH = 8;

/** A UDP datagram (RFC 768); `payload` is a view. */
export interface UdpDatagram {
  srcPort: number;
  dstPort: number;
  payload: Uint8Array;
}

/** Parses a datagram and verifies its checksum against the IPv4 pseudo-header (0 = none sent). */
export function parseUdpDatagram(bytes: Uint8Array, src: Ipv4Address, dst: Ipv4Address): UdpDatagram {
  need(bytes, UDP_HEADER_LENGTH, "UDP header");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint16(4);
  if (length < UDP_HEADER_LENGTH || length > bytes.length)
    throw new MalformedFrame(`UDP length ${length} does not fit ${bytes.length} bytes`);
  if (view.getUint16(6) !== 0) {
    const sum = onesComplementSum(bytes, 0, length, pseudoHeaderSum(src, dst, PROTOCOL_UDP, length));
    if (finishChecksum(sum) !== 0) throw new MalformedFrame("UDP checksum mismatch");
  }
  return { srcPort: view.getUint16(0), dstPort: view.getUint16(2), payload: bytes.subarray(UDP_HEADER_LENGTH, length) };
}

export function serializeUdpDatagram(datagram: UdpDatagram, src: Ipv4Address, dst: Ipv4Address): Uint8Array {
  const length = UDP_HEADER_LENGTH + datagram.payload.length;
  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  view.setUint16(0, datagram.srcPort);
  view.setUint16(2, datagram.dstPort);
  view.setUint16(4, length);
  out.set(datagram.payload, UDP_HEADER_LENGTH);
  // A computed 0 is sent as 0xffff: 0 on the wire means "no checksum" (RFC 768).
  view.setUint16(6, finishChecksum(onesComplementSum(out, 0, length, pseudoHeaderSum(src, dst, PROTOCOL_UDP, length))) || 0xffff);
  return out;
}

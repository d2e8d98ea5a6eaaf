import type { Ipv4Address } from "./address";
import { finishChecksum, onesComplementSum, pseudoHeaderSum } from "./checksum";
import { PROTOCOL_TCP } from "./ipv4";
import { MalformedFrame, need } from "./malformed";

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_PSH = 0x08;
export const TCP_ACK = 0x10;
export const TCP_URG = 0x20;
export const TCP_HEADER_LENGTH = 20;
/** MSS option (kind 2, length 4): the only option the peer sends, and only on SYN-ACK. */
export const TCP_MSS_OPTION_LENGTH = 4;

/**
 * A TCP segment (RFC 9293). `mss` is the MSS option if present; window scaling, SACK and
 * timestamps are skipped (never echoed, so they are not in effect). `payload` is a view.
 */
export interface TcpSegment {
  srcPort: number;
  dstPort: number;
  seq: number;
  ack: number;
  flags: number;
  window: number;
  urgent: number;
  mss: number | null;
  payload: Uint8Array;
}

/** Parses a segment and verifies its checksum against the IPv4 pseudo-header. */
export function parseTcpSegment(bytes: Uint8Array, src: Ipv4Address, dst: Ipv4Address): TcpSegment {
  need(bytes, TCP_HEADER_LENGTH, "TCP header");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = (bytes[12]! >>> 4) * 4;
  if (headerLength < TCP_HEADER_LENGTH || headerLength > bytes.length) {
    throw new MalformedFrame(`TCP data offset ${headerLength} does not fit ${bytes.length} bytes`);
  }
  const sum = onesComplementSum(bytes, 0, bytes.length, pseudoHeaderSum(src, dst, PROTOCOL_TCP, bytes.length));
  if (finishChecksum(sum) !== 0) throw new MalformedFrame("TCP checksum mismatch");
  return {
    srcPort: view.getUint16(0),
    dstPort: view.getUint16(2),
    seq: view.getUint32(4),
    ack: view.getUint32(8),
    flags: bytes[13]! & 0x3f,
    window: view.getUint16(14),
    urgent: view.getUint16(18),
    mss: parseMssOption(bytes, headerLength),
    payload: bytes.subarray(headerLength),
  };
}

function parseMssOption(bytes: Uint8Array, headerLength: number): number | null {
  let mss: number | null = null;
  let i = TCP_HEADER_LENGTH;
  while (i < headerLength) {
    const kind = bytes[i]!;
    if (kind === 0) break; // end of option list
    if (kind === 1) {
      i++; // no-operation padding
      continue;
    }
    const length = bytes[i + 1];
    if (length === undefined || length < 2 || i + length > headerLength) throw new MalformedFrame(`TCP option ${kind} has a bad length`);
    if (kind === 2) {
      if (length !== 4) throw new MalformedFrame(`TCP MSS option of length ${length}`);
      mss = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    }
    i += length;
  }
  return mss;
}

/** The header fields of an outgoing segment; the payload is written by the caller. */
export interface TcpHeaderFields {
  srcPort: number;
  dstPort: number;
  seq: number;
  ack: number;
  flags: number;
  window: number;
  mss?: number | null;
}

export const tcpHeaderLength = (fields: TcpHeaderFields): number => TCP_HEADER_LENGTH + (fields.mss != null ? TCP_MSS_OPTION_LENGTH : 0);

/** Writes the header at `offset`; the checksum is left 0 until `fillTcpChecksum`. */
export function writeTcpHeader(out: Uint8Array, offset: number, fields: TcpHeaderFields): number {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const headerLength = tcpHeaderLength(fields);
  view.setUint16(offset, fields.srcPort);
  view.setUint16(offset + 2, fields.dstPort);
  view.setUint32(offset + 4, fields.seq >>> 0);
  view.setUint32(offset + 8, fields.ack >>> 0);
  out[offset + 12] = (headerLength / 4) << 4;
  out[offset + 13] = fields.flags;
  view.setUint16(offset + 14, fields.window);
  view.setUint32(offset + 16, 0); // checksum and urgent pointer
  if (fields.mss != null) view.setUint32(offset + 20, (2 << 24) | (4 << 16) | fields.mss);
  return headerLength;
}

/** Computes the checksum of the segment at out[offset, offset+length) and stores it. */
export function fillTcpChecksum(out: Uint8Array, offset: number, length: number, src: Ipv4Address, dst: Ipv4Address): void {
  const sum = onesComplementSum(out, offset, length, pseudoHeaderSum(src, dst, PROTOCOL_TCP, length));
  const checksum = finishChecksum(sum);
  out[offset + 16] = checksum >>> 8;
  out[offset + 17] = checksum & 0xff;
}

export function serializeTcpSegment(fields: TcpHeaderFields, payload: Uint8Array, src: Ipv4Address, dst: Ipv4Address): Uint8Array {
  const headerLength = tcpHeaderLength(fields);
  const out = new Uint8Array(headerLength + payload.length);
  writeTcpHeader(out, 0, fields);
  out.set(payload, headerLength);
  fillTcpChecksum(out, 0, out.length, src, dst);
  return out;
}

/** "SYN|ACK" style names for logs and test messages. */
export function formatTcpFlags(flags: number): string {
  const names: string[] = [];
  if (flags & TCP_SYN) names.push("SYN");
  if (flags & TCP_FIN) names.push("FIN");
  if (flags & TCP_RST) names.push("RST");
  if (flags & TCP_PSH) names.push("PSH");
  if (flags & TCP_ACK) names.push("ACK");
  if (flags & TCP_URG) names.push("URG");
  return names.join("|") || "none";
}

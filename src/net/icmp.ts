import { internetChecksum } from "./checksum";
import { MalformedFrame, need } from "./malformed";

export const ICMP_ECHO_REPLY = 0;
export const ICMP_DESTINATION_UNREACHABLE = 3;
export const ICMP_ECHO_REQUEST = 8;
export const ICMP_HEADER_LENGTH = 8;

/**
 * An ICMP message (RFC 792). `rest` is the 4-byte rest-of-header: for echo, identifier << 16 |
 * sequence. `data` is a view.
 */
export interface IcmpMessage {
  type: number;
  code: number;
  rest: number;
  data: Uint8Array;
}

export function parseIcmpMessage(bytes: Uint8Array): IcmpMessage {
  need(bytes, ICMP_HEADER_LENGTH, "ICMP header");
  if (internetChecksum(bytes) !== 0) throw new MalformedFrame("ICMP checksum mismatch");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { type: bytes[0]!, code: bytes[1]!, rest: view.getUint32(4), data: bytes.subarray(ICMP_HEADER_LENGTH) };
}

export function serializeIcmpMessage(message: IcmpMessage): Uint8Array {
  const out = new Uint8Array(ICMP_HEADER_LENGTH + message.data.length);
  const view = new DataView(out.buffer);
  out[0] = message.type;
  out[1] = message.code;
  view.setUint32(4, message.rest >>> 0);
  out.set(message.data, ICMP_HEADER_LENGTH);
  view.setUint16(2, internetChecksum(out));
  return out;
}

export const echoId = (message: IcmpMessage): number => message.rest >>> 16;
export const echoSequence = (message: IcmpMessage): number => message.rest & 0xffff;

import { need } from "./malformed";

export const ETHERNET_HEADER_LENGTH = 14;
export const ETHERTYPE_IPV4 = 0x0800;
export const ETHERTYPE_ARP = 0x0806;
export const ETHERTYPE_IPV6 = 0x86dd;

/** An Ethernet II frame. `dst`, `src` and `payload` are views into the parsed bytes (no copy). */
export interface EthernetFrame {
  dst: Uint8Array;
  src: Uint8Array;
  ethertype: number;
  payload: Uint8Array;
}

export function parseEthernetFrame(bytes: Uint8Array): EthernetFrame {
  need(bytes, ETHERNET_HEADER_LENGTH, "Ethernet header");
  return {
    dst: bytes.subarray(0, 6),
    src: bytes.subarray(6, 12),
    ethertype: (bytes[12]! << 8) | bytes[13]!,
    payload: bytes.subarray(ETHERNET_HEADER_LENGTH),
  };
}

/** Writes the 14-byte header at `offset` of `out`. */
export function writeEthernetHeader(out: Uint8Array, offset: number, dst: Uint8Array, src: Uint8Array, ethertype: number): void {
  out.set(dst.subarray(0, 6), offset);
  out.set(src.subarray(0, 6), offset + 6);
  out[offset + 12] = ethertype >>> 8;
  out[offset + 13] = ethertype & 0xff;
}

export function serializeEthernetFrame(frame: EthernetFrame): Uint8Array {
  const out = new Uint8Array(ETHERNET_HEADER_LENGTH + frame.payload.length);
  writeEthernetHeader(out, 0, frame.dst, frame.src, frame.ethertype);
  out.set(frame.payload, ETHERNET_HEADER_LENGTH);
  return out;
}

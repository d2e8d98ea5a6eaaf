import type { Ipv4Address } from "./address";
import { ETHERNET_HEADER_LENGTH, ETHERTYPE_IPV4, writeEthernetHeader } from "./ethernet";
import { IPV4_HEADER_LENGTH, writeIpv4Header } from "./ipv4";

/** Who an outgoing IPv4 frame is from and to, on both layers. */
export interface Ipv4Route {
  srcMac: Uint8Array;
  dstMac: Uint8Array;
  src: Ipv4Address;
  dst: Ipv4Address;
}

/** Where the transport header starts in a frame built by `allocateIpv4Frame`. */
export const TRANSPORT_OFFSET = ETHERNET_HEADER_LENGTH + IPV4_HEADER_LENGTH;

/**
 * One allocation per outgoing frame: Ethernet and IPv4 headers written, the transport part
 * (from TRANSPORT_OFFSET, `transportLength` bytes) left for the caller to fill in place.
 */
export function allocateIpv4Frame(route: Ipv4Route, protocol: number, id: number, transportLength: number): Uint8Array {
  const frame = new Uint8Array(TRANSPORT_OFFSET + transportLength);
  writeEthernetHeader(frame, 0, route.dstMac, route.srcMac, ETHERTYPE_IPV4);
  writeIpv4Header(frame, ETHERNET_HEADER_LENGTH, { src: route.src, dst: route.dst, protocol, id }, transportLength);
  return frame;
}

/** A frame carrying an already serialized transport message (ICMP, UDP: small, not hot). */
export function ipv4Frame(route: Ipv4Route, protocol: number, id: number, transport: Uint8Array): Uint8Array {
  const frame = allocateIpv4Frame(route, protocol, id, transport.length);
  frame.set(transport, TRANSPORT_OFFSET);
  return frame;
}

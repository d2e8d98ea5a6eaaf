export { formatIpv4Address, formatMacAddress, type Ipv4Address, parseIpv4Address, parseMacAddress } from "./address";
export { type ArpPacket, parseArpPacket, serializeArpPacket } from "./arp";
export { internetChecksum } from "./checksum";
export type { NetCounters } from "./counters";
export {
  type DnsAnswer,
  type DnsLookup,
  type DnsPolicy,
  type DnsQuery,
  type DnsResponse,
  parseDnsQuery,
  refuseAllDns,
  serializeDnsResponse,
} from "./dns";
export { type EthernetFrame, parseEthernetFrame, serializeEthernetFrame } from "./ethernet";
export { type IcmpMessage, parseIcmpMessage, serializeIcmpMessage } from "./icmp";
export { type Ipv4Packet, parseIpv4Packet, serializeIpv4Packet } from "./ipv4";
export type { FrameLink } from "./link";
export { MalformedFrame } from "./malformed";
export { summarizeControlFrame } from "./observe";
export { createNetworkPeer, DEFAULT_NETWORK_CONFIG, type NetworkConfig, type NetworkPeer, type NetworkPeerOptions } from "./peer";
export type { AcceptHandler, ConnectionInfo } from "./tcp";
export type { TcpState } from "./tcp-connection";
export { DEFAULT_TCP_CONFIG, type TcpConfig } from "./tcp-host";
export { parseTcpSegment, serializeTcpSegment, type TcpHeaderFields, type TcpSegment } from "./tcp-segment";
export type { TcpStream } from "./tcp-stream";
export { parseUdpDatagram, serializeUdpDatagram, type UdpDatagram } from "./udp";
export { connectV86Link, type V86Bus } from "./v86-link";

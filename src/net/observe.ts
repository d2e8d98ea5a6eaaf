import type { EventLog, NewEvent } from "../log";
import { formatIpv4Address, formatMacAddress } from "./address";
import type { NetCounters } from "./counters";
import { ETHERTYPE_ARP, ETHERTYPE_IPV4 } from "./ethernet";
import { PROTOCOL_ICMP, PROTOCOL_TCP, PROTOCOL_UDP } from "./ipv4";
import type { FrameLink } from "./link";
import { formatTcpFlags, TCP_FIN, TCP_RST, TCP_SYN } from "./tcp-segment";

type WireFrameEvent = Extract<NewEvent, { kind: "wire.frame" }>;

/**
 * The Wire panel's tap, as one step of the frame pipeline (not sprinkled through the
 * stack; docs/decisions/0007-how-the-code-is-shaped.md). Every frame is counted; control frames (ARP, ICMP, UDP/DNS, TCP SYN/FIN/RST) are
 * logged as `wire.frame` with a one-line summary; bulk data and bare ACKs are only counted.
 * It only peeks at header bytes, never trusts them: the peer validates frames separately.
 */
export function observeLink(link: FrameLink, log: EventLog, counters: NetCounters): FrameLink {
  return {
    onFrame(receive) {
      return link.onFrame((frame) => {
        counters.framesIn++;
        counters.bytesIn += frame.length;
        const summary = summarizeControlFrame(frame);
        if (summary) log.append({ kind: "wire.frame", dir: "in", bytes: frame.length, ...summary });
        receive(frame);
      });
    },
    send(frame) {
      counters.framesOut++;
      counters.bytesOut += frame.length;
      const summary = summarizeControlFrame(frame);
      if (summary) log.append({ kind: "wire.frame", dir: "out", bytes: frame.length, ...summary });
      link.send(frame);
    },
  };
}

/** A summary of a control frame, or null for data, bare ACKs and unreadable frames. */
export function summarizeControlFrame(frame: Uint8Array): Pick<WireFrameEvent, "proto" | "summary"> | null {
  if (frame.length < 14) return null;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const ethertype = view.getUint16(12);
  if (ethertype === ETHERTYPE_ARP) {
    if (frame.length < 42) return null;
    const op = view.getUint16(20);
    const sender = formatIpv4Address(view.getUint32(28));
    const target = formatIpv4Address(view.getUint32(38));
    if (op === 1) return { proto: "arp", summary: `ARP who-has ${target} tell ${sender}` };
    if (op === 2) return { proto: "arp", summary: `ARP ${sender} is-at ${formatMacAddress(frame, 22)}` };
    return { proto: "arp", summary: `ARP op ${op}` };
  }
  if (ethertype !== ETHERTYPE_IPV4 || frame.length < 34) return null;
  const headerLength = (frame[14]! & 0x0f) * 4;
  const protocol = frame[23]!;
  const src = formatIpv4Address(view.getUint32(26));
  const dst = formatIpv4Address(view.getUint32(30));
  const t = 14 + headerLength;
  if (protocol === PROTOCOL_ICMP) {
    if (frame.length < t + 8) return null;
    const type = frame[t]!;
    const name = type === 8 ? "echo request" : type === 0 ? "echo reply" : type === 3 ? `unreachable code ${frame[t + 1]}` : `type ${type}`;
    const echo = type === 0 || type === 8 ? ` id ${view.getUint16(t + 4)} seq ${view.getUint16(t + 6)}` : "";
    return { proto: "icmp", summary: `ICMP ${name} ${src} → ${dst}${echo}` };
  }
  if (protocol === PROTOCOL_UDP) {
    if (frame.length < t + 8) return null;
    const sport = view.getUint16(t);
    const dport = view.getUint16(t + 2);
    const dns = sport === 53 || dport === 53;
    return { proto: dns ? "dns" : "udp", summary: `${dns ? "DNS" : "UDP"} ${src}:${sport} → ${dst}:${dport}` };
  }
  if (protocol === PROTOCOL_TCP) {
    if (frame.length < t + 20) return null;
    const flags = frame[t + 13]! & 0x3f;
    if ((flags & (TCP_SYN | TCP_FIN | TCP_RST)) === 0) return null;
    const extra = flags & TCP_SYN ? ` seq ${view.getUint32(t + 4)}` : "";
    return { proto: "tcp", summary: `${formatTcpFlags(flags)} ${src}:${view.getUint16(t)} → ${dst}:${view.getUint16(t + 2)}${extra}` };
  }
  return null;
}

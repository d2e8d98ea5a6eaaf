import { z } from "zod";
import { VerdictCode } from "../verdict";
import { VerdictFields } from "./common";

/** A frame seen on the guest's wire, summarised on one line (Wire panel). */
export const WireFrame = z.object({
  kind: z.literal("wire.frame"),
  /** "in" = from the guest to the page, "out" = from the page to the guest. */
  dir: z.enum(["in", "out"]),
  proto: z.enum(["arp", "icmp", "udp", "dns", "tcp", "ipv4", "ethernet", "other"]),
  summary: z.string(),
  bytes: z.number().int().nonnegative(),
});

/** A TCP connection's life on the wire: opened, closed (with byte counts) or refused. */
export const WireConnection = z.object({
  kind: z.literal("wire.connection"),
  id: z.string(),
  phase: z.enum(["open", "close", "reset", "refused"]),
  remote: z.string(),
  port: z.number().int(),
  bytesIn: z.number().int().nonnegative(),
  bytesOut: z.number().int().nonnegative(),
  note: z.string().optional(),
});

/** A DNS query the guest sent, with what the peer answered. */
export const WireDns = z.object({
  kind: z.literal("wire.dns"),
  name: z.string(),
  type: z.string(),
  answer: z.string(),
  /** The response code sent (0 NOERROR, 3 NXDOMAIN, 5 REFUSED, ...). */
  rcode: z.number().int().optional(),
});

/** A frame the peer could not use (bad checksum, fragment, truncated): counted, never fatal. */
export const WireMalformed = z.object({
  kind: z.literal("wire.malformed"),
  reason: z.string(),
  bytes: z.number().int().nonnegative(),
  /** `fragment-refused` for IPv4 fragments, `malformed-frame` for everything else. */
  code: VerdictCode.optional(),
});

/** A decision taken on the wire itself, e.g. a SYN to an address with no route out of the tab. */
export const WireVerdict = z.object({
  kind: z.literal("wire.verdict"),
  target: z.string(),
  ...VerdictFields,
});

export const wireEvents = [WireFrame, WireConnection, WireDns, WireMalformed, WireVerdict] as const;

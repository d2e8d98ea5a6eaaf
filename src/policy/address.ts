/**
 * What kind of host is this (like smokescreen's `ipType`, kept apart from load and
 * decide). Two questions live here, both pure:
 *  - `classifyHost`: is a URL or CONNECT host a name or an IP literal, in any spelling the
 *    WHATWG URL parser accepts (IP literals are refused, only names can be allowed)?
 *  - `classifyAddress`: is a resolved address globally reachable, or loopback, private,
 *    link-local, CGNAT, documentation…, which the Node host refuses (`private-address`)?
 */

export type HostKind =
  | { kind: "name"; name: string }
  | { kind: "ipv4"; address: string }
  | { kind: "ipv6"; address: string }
  | { kind: "invalid"; reason: string };

// Characters that end or split a host in a URL authority; a host containing one is a trick.
const AUTHORITY_DELIMITERS = /[\s/\\?#@:%[\]]/;
const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * Classifies a host exactly as a browser would see it. The WHATWG URL parser is the
 * authority: it turns `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, fullwidth digits and
 * percent-encoded digits into `127.0.0.1`, so anything it reads as IPv4 comes back as a dotted
 * quad and anything bracketed is IPv6. Names come back lowercase, punycoded, without the
 * trailing dot (the same DNS name).
 */
export function classifyHost(raw: string): HostKind {
  if (raw === "") return { kind: "invalid", reason: "the host is empty" };
  if (raw.startsWith("[")) {
    if (!raw.endsWith("]")) return { kind: "invalid", reason: `${raw} is an unterminated IPv6 literal` };
    const parsed = parseHostWithUrl(raw);
    return parsed === null ? { kind: "invalid", reason: `${raw} is not a valid IPv6 literal` } : { kind: "ipv6", address: parsed };
  }
  // A percent sign is a spelling trick (`%31%32%37.0.0.1`); the parser decodes it, so let it,
  // but refuse every other delimiter that would make the parser see a different host.
  if (AUTHORITY_DELIMITERS.test(raw.replace(/%/g, "")))
    return { kind: "invalid", reason: `${JSON.stringify(raw)} contains a character that cannot be part of a host` };
  const hostname = parseHostWithUrl(raw);
  if (hostname === null) return { kind: "invalid", reason: `${JSON.stringify(raw)} is not a valid host` };
  if (hostname.startsWith("[")) return { kind: "ipv6", address: hostname };
  if (DOTTED_QUAD.test(hostname)) return { kind: "ipv4", address: hostname };
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (name === "" || name.startsWith(".") || name.includes(".."))
    return { kind: "invalid", reason: `${JSON.stringify(raw)} has an empty label` };
  return { kind: "name", name };
}

function parseHostWithUrl(host: string): string | null {
  try {
    return new URL(`https://${host}/`).hostname;
  } catch {
    return null;
  }
}

export type AddressCategory =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "documentation"
  | "benchmarking"
  | "multicast"
  | "broadcast"
  | "discard"
  | "reserved"
  | "translated"
  | "unique-local"
  | "invalid";

/**
 * A row of the address table: a prefix, and either a category or `embedded-ipv4` (the address
 * reaches the IPv4 address it carries, so that address's row decides).
 */
type Row = readonly [cidr: string, rule: AddressCategory | EmbeddedIPv4, entry: string];
type EmbeddedIPv4 = { embeddedAt: number };

// The IANA IPv4 Special-Purpose Address Registry, entry by entry (RFC 6890 and later). An entry
// whose "Globally Reachable" is False or N/A is refused; the few that are True are listed as
// `public` so that a more specific True entry inside a False block (192.0.0.9) is not refused
// by the block. Multicast and limited broadcast are never an upstream either.
const V4_ROWS: readonly Row[] = [
  ["0.0.0.0/8", "unspecified", '"this network"'],
  ["10.0.0.0/8", "private", "private-use"],
  ["100.64.0.0/10", "cgnat", "shared address space"],
  ["127.0.0.0/8", "loopback", "loopback"],
  ["169.254.0.0/16", "link-local", "link local"],
  ["172.16.0.0/12", "private", "private-use"],
  ["192.0.0.0/24", "reserved", "IETF protocol assignments"],
  ["192.0.0.0/29", "reserved", "IPv4 service continuity prefix (DS-Lite)"],
  ["192.0.0.8/32", "reserved", "IPv4 dummy address"],
  ["192.0.0.9/32", "public", "port control protocol anycast"],
  ["192.0.0.10/32", "public", "traversal using relays around NAT anycast"],
  ["192.0.0.170/32", "reserved", "NAT64/DNS64 discovery"],
  ["192.0.0.171/32", "reserved", "NAT64/DNS64 discovery"],
  ["192.0.2.0/24", "documentation", "documentation (TEST-NET-1)"],
  ["192.31.196.0/24", "public", "AS112-v4"],
  ["192.52.193.0/24", "public", "AMT"],
  ["192.88.99.0/24", "reserved", "deprecated 6to4 relay anycast"],
  ["192.168.0.0/16", "private", "private-use"],
  ["192.175.48.0/24", "public", "direct delegation AS112 service"],
  ["198.18.0.0/15", "benchmarking", "benchmarking"],
  ["198.51.100.0/24", "documentation", "documentation (TEST-NET-2)"],
  ["203.0.113.0/24", "documentation", "documentation (TEST-NET-3)"],
  ["224.0.0.0/4", "multicast", "multicast"],
  ["240.0.0.0/4", "reserved", "reserved"],
  ["255.255.255.255/32", "broadcast", "limited broadcast"],
];

// The IANA IPv6 Special-Purpose Address Registry, entry by entry, inside the one block IANA
// allocates as global unicast (2000::/3): everything outside it is unassigned or special and is
// refused unless a row says otherwise. Prefixes that carry an IPv4 address are classified by it.
const V6_ROWS: readonly Row[] = [
  ["::/0", "reserved", "outside global unicast (2000::/3)"],
  ["2000::/3", "public", "global unicast"],
  ["::/128", "unspecified", "unspecified address"],
  ["::1/128", "loopback", "loopback address"],
  ["::ffff:0:0/96", { embeddedAt: 12 }, "IPv4-mapped address"],
  // RFC 2765 SIIT: not in the registry, not routed; refused whatever it embeds.
  ["::ffff:0:0:0/96", "translated", "IPv4-translated address"],
  ["64:ff9b::/96", { embeddedAt: 12 }, "IPv4-IPv6 translation (NAT64)"],
  ["64:ff9b:1::/48", "translated", "local-use IPv4/IPv6 translation"],
  ["100::/64", "discard", "discard-only address block"],
  ["100:0:0:1::/64", "reserved", "dummy IPv6 prefix"],
  ["2001::/23", "reserved", "IETF protocol assignments"],
  ["2001::/32", "reserved", "TEREDO"],
  ["2001:1::1/128", "public", "port control protocol anycast"],
  ["2001:1::2/128", "public", "traversal using relays around NAT anycast"],
  ["2001:1::3/128", "public", "DNS-SD service registration protocol anycast"],
  ["2001:2::/48", "benchmarking", "benchmarking"],
  ["2001:3::/32", "public", "AMT"],
  ["2001:4:112::/48", "public", "AS112-v6"],
  ["2001:10::/28", "reserved", "deprecated ORCHID"],
  ["2001:20::/28", "public", "ORCHIDv2"],
  ["2001:30::/28", "public", "drone remote ID protocol entity tags"],
  ["2001:db8::/32", "documentation", "documentation"],
  ["2002::/16", { embeddedAt: 2 }, "6to4"],
  ["2620:4f:8000::/48", "public", "direct delegation AS112 service"],
  ["3fff::/20", "documentation", "documentation"],
  ["5f00::/16", "reserved", "segment routing (SRv6) SIDs"],
  ["fc00::/7", "unique-local", "unique-local"],
  ["fe80::/10", "link-local", "link-local unicast"],
  ["fec0::/10", "reserved", "deprecated site-local"],
  ["ff00::/8", "multicast", "multicast"],
];

interface Range {
  bytes: Uint8Array;
  bits: number;
  cidr: string;
  rule: AddressCategory | EmbeddedIPv4;
  entry: string;
}

/** Longest prefix first, so the most specific registry entry decides. */
function compile(rows: readonly Row[], parse: (text: string) => Uint8Array | null): readonly Range[] {
  return rows
    .map(([cidr, rule, entry]) => {
      const [text = "", bits = ""] = cidr.split("/");
      const bytes = parse(text);
      if (!bytes) throw new Error(`address table: ${cidr} is not an address prefix`);
      return { bytes, bits: Number(bits), cidr, rule, entry };
    })
    .sort((a, b) => b.bits - a.bits);
}

const V4_RANGES = compile(V4_ROWS, (text) => parseIPv4Dotted(text));
const V6_RANGES = compile(V6_ROWS, (text) => parseIPv6(text));

/** What an address is, and the registry entry that says so (for reasons people read). */
export interface AddressClass {
  category: AddressCategory;
  /** `127.0.0.0/8 loopback`, or for an embedded IPv4 `::ffff:0:0/96 IPv4-mapped address → …`. */
  entry: string;
}

/**
 * The class of a resolved address (what `dns.lookup` returns: dotted IPv4 or textual IPv6,
 * optionally bracketed). Anything but `public` is refused by the Node host (`private-address`).
 */
export function classifyAddress(address: string): AddressClass {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = parseIPv4Dotted(text);
  if (v4) return lookupRange(v4, V4_RANGES);
  const v6 = parseIPv6(text);
  if (!v6) return { category: "invalid", entry: "not an IP address" };
  const range = V6_RANGES.find((r) => inPrefix(v6, r.bytes, r.bits));
  if (!range) return { category: "reserved", entry: "no registry entry" };
  if (typeof range.rule === "string") return { category: range.rule, entry: `${range.cidr} ${range.entry}` };
  const inner = lookupRange(v6.slice(range.rule.embeddedAt, range.rule.embeddedAt + 4), V4_RANGES);
  return { category: inner.category, entry: `${range.cidr} ${range.entry} → ${inner.entry}` };
}

/** The category alone (see `classifyAddress`). */
export function addressCategory(address: string): AddressCategory {
  return classifyAddress(address).category;
}

/** True when the address may be connected to as an upstream (not private in any sense). */
export function isPublicAddress(address: string): boolean {
  return addressCategory(address) === "public";
}

function lookupRange(bytes: Uint8Array, ranges: readonly Range[]): AddressClass {
  const range = ranges.find((r) => inPrefix(bytes, r.bytes, r.bits));
  if (!range || typeof range.rule !== "string") return { category: "public", entry: "no special-purpose entry" };
  return { category: range.rule, entry: `${range.cidr} ${range.entry}` };
}

function inPrefix(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let i = 0; i * 8 < bits; i++) {
    const take = Math.min(8, bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Strict dotted-quad IPv4 (the canonical form resolvers print), or null. */
export function parseIPv4Dotted(text: string): Uint8Array | null {
  if (!DOTTED_QUAD.test(text)) return null;
  const parts = text.split(".").map(Number);
  if (parts.some((p) => p > 255)) return null;
  return Uint8Array.from(parts);
}

/** Textual IPv6 (RFC 4291 §2.2, with `::` and an embedded dotted IPv4 tail) to 16 bytes, or null. */
export function parseIPv6(text: string): Uint8Array | null {
  const zoneless = text.split("%")[0] ?? "";
  if (!/^[0-9a-fA-F:.]+$/.test(zoneless)) return null;
  const halves = zoneless.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] ?? "";
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIPv4Dotted(piece);
        if (!v4) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
        out.push(Number.parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0] ?? "");
  const tail = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

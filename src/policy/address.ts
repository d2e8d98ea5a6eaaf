/**
 * What kind of host is this (style.md: smokescreen's `ipType`, kept apart from load and
 * decide). Two questions live here, both pure:
 *  - `classifyHost`: is a URL or CONNECT host a name or an IP literal, in any spelling the
 *    WHATWG URL parser accepts (seed 004: "403 IP literals are refused")?
 *  - `addressCategory`: is a resolved address public, or loopback, private, link-local,
 *    CGNAT, documentation, IPv4-mapped…, which the Node host refuses (`private-address`)?
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
  | "reserved"
  | "ipv4-mapped"
  | "translated"
  | "unique-local"
  | "invalid";

type Range = readonly [prefix: number[], bits: number, category: AddressCategory];

// IPv4 special-purpose ranges (RFC 6890 and the IANA registry) that are never a public upstream.
const V4_RANGES: readonly Range[] = [
  [[0, 0, 0, 0], 8, "unspecified"],
  [[10, 0, 0, 0], 8, "private"],
  [[100, 64, 0, 0], 10, "cgnat"],
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local"],
  [[172, 16, 0, 0], 12, "private"],
  [[192, 0, 0, 0], 24, "reserved"],
  [[192, 0, 2, 0], 24, "documentation"],
  [[192, 88, 99, 0], 24, "reserved"],
  [[192, 168, 0, 0], 16, "private"],
  [[198, 18, 0, 0], 15, "benchmarking"],
  [[198, 51, 100, 0], 24, "documentation"],
  [[203, 0, 113, 0], 24, "documentation"],
  [[224, 0, 0, 0], 4, "multicast"],
  [[240, 0, 0, 0], 4, "reserved"],
];

// IPv6 ranges, as 16 bytes.
const V6_RANGES: readonly Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, "ipv4-mapped"],
  [[0, 0x64, 0xff, 0x9b], 96, "translated"],
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48, "translated"],
  [[1, 0, 0, 0, 0, 0, 0, 0], 64, "reserved"],
  [[0x20, 0x01, 0x0d, 0xb8], 32, "documentation"],
  [[0x20, 0x01, 0, 0], 23, "reserved"],
  [[0x20, 0x02], 16, "translated"],
  [[0x3f, 0xff], 20, "documentation"],
  [[0xfc], 7, "unique-local"],
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "reserved"],
  [[0xff], 8, "multicast"],
];

/**
 * The category of a resolved address (what `dns.lookup` returns: dotted IPv4 or textual
 * IPv6, optionally bracketed). Anything but `public` is refused by the Node host.
 */
export function addressCategory(address: string): AddressCategory {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = parseIPv4Dotted(text);
  if (v4) return matchRanges(v4, V4_RANGES);
  const v6 = parseIPv6(text);
  if (!v6) return "invalid";
  if (v6.every((b) => b === 0)) return "unspecified";
  if (v6.slice(0, 15).every((b) => b === 0) && v6[15] === 1) return "loopback";
  // IPv4-compatible (deprecated ::a.b.c.d): treat as the embedded address would be treated.
  if (v6.slice(0, 12).every((b) => b === 0)) return "reserved";
  return matchRanges(v6, V6_RANGES);
}

/** True when the address may be connected to as an upstream (not private in any sense). */
export function isPublicAddress(address: string): boolean {
  return addressCategory(address) === "public";
}

function matchRanges(bytes: Uint8Array, ranges: readonly Range[]): AddressCategory {
  for (const [prefix, bits, category] of ranges) if (inPrefix(bytes, prefix, bits)) return category;
  return "public";
}

function inPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
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

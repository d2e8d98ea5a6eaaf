import { type Decider, refuse, type Verdict } from "../log";
import { type AddressCategory, classifyAddress, classifyHost, parseIPv4Dotted, parseIPv6 } from "./address";

/**
 * One reading of a host for every component that compares or fetches one (the proxy's
 * decision, the resolver, the lesson judge, the CLI's guarded fetch, the relay): so a name
 * means the same to all of them. `classifyHost` (address.ts) settles the spelling — case,
 * punycode, one trailing dot, every IPv4 spelling the URL parser accepts, IPv6 brackets —
 * and this adds the one question the address table cannot answer without DNS: is the name
 * private by convention (docs/decisions/0028-material-from-a-link-is-untrusted.md, "Guarantees no material can lift")?
 */
export type HostReading =
  /** A name that may be public: lowercase, punycode, no trailing dot. */
  | { kind: "name"; host: string }
  /** A name that only means something inside one network or machine; `why` says which convention. */
  | { kind: "private-name"; host: string; why: string }
  /** An IP address in any spelling: `host` as a URL prints it (`127.0.0.1`, `[::1]`), `address` bare. */
  | { kind: "ip-literal"; host: string; address: string; category: AddressCategory }
  | { kind: "invalid"; reason: string };

// Zones whose names resolve, by convention or standard, only inside a machine or a network.
const PRIVATE_ZONES: readonly (readonly [zone: string, why: string])[] = [
  ["localhost", "a loopback name (RFC 6761: localhost and every name under it)"],
  ["local", "a link-local multicast DNS name (RFC 6762: .local, also Kubernetes' cluster.local)"],
  ["internal", "a private-use name (.internal, reserved by ICANN for private networks)"],
  ["home.arpa", "a home-network name (RFC 8375: .home.arpa)"],
  ["localdomain", "a local-host name (.localdomain, the hosts-file domain of localhost)"],
  ["home", "a home-network name by convention (.home, RFC 6762 appendix G)"],
  ["lan", "a local-network name by convention (.lan, RFC 6762 appendix G)"],
  ["intranet", "a private-network name by convention (.intranet, RFC 6762 appendix G)"],
  ["corp", "a private-network name by convention (.corp, RFC 6762 appendix G)"],
  ["private", "a private-network name by convention (.private, RFC 6762 appendix G)"],
  ["svc", "a Kubernetes service name (.svc, resolved by the cluster's DNS)"],
  ["in-addr.arpa", "a reverse-DNS name (.in-addr.arpa), never a web host"],
  ["ip6.arpa", "a reverse-DNS name (.ip6.arpa), never a web host"],
  // Public zones whose every name resolves to 127.0.0.1 by design (developer conveniences).
  ["localtest.me", "a public name that resolves to loopback by design (localtest.me)"],
  ["lvh.me", "a public name that resolves to loopback by design (lvh.me)"],
];

// Four decimal octets, separated by dots or dashes, not followed by another digit (sticky:
// tried at each position where a run of digits starts).
const DECIMAL_AT = /(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?!\d)/y;
// Address classes a hex label (nip.io's `7f000001`, `a000803`) or a dashed IPv6 label (sslip.io's
// `--1`) is refused for: the guarantee's own classes. Read this narrowly because a random hex
// label (a hash) is often multicast, and `dead--beef` spells a reserved IPv6 address.
const SPELLED_REFUSED: ReadonlySet<AddressCategory> = new Set([
  "loopback",
  "private",
  "link-local",
  "cgnat",
  "unspecified",
  "unique-local",
]);

/**
 * Reads a host (a URL's or CONNECT's host, without its port). Every caller that decides on a
 * host calls this, so `HOST.`, `Host` and `host` are one name, `0x7f.1` and `127.0.0.1` one
 * address, `localhost.` and `a.localhost` one private name, `::1` and `[::1]` one address.
 */
export function readHost(raw: string): HostReading {
  // A log re-decided names few hosts many times: each is read once (the reading depends on the text alone).
  const known = READINGS.get(raw);
  if (known) return known;
  const reading = readHostUncached(raw);
  if (READINGS.size >= MAX_READINGS) READINGS.clear();
  READINGS.set(raw, Object.freeze(reading));
  return reading;
}

// Bounded: a hostile stream of made-up hosts costs at most this many readings held.
const MAX_READINGS = 4096;
const READINGS = new Map<string, HostReading>();

function readHostUncached(raw: string): HostReading {
  // A bare IPv6 address (a resolver's answer, a relay stream's destination) is the bracketed one.
  const host = classifyHost(raw.includes(":") && !raw.startsWith("[") && parseIPv6(raw) ? `[${raw}]` : raw);
  switch (host.kind) {
    case "invalid":
      return host;
    case "ipv4":
      return { kind: "ip-literal", host: host.address, address: host.address, category: classifyAddress(host.address).category };
    case "ipv6": {
      const address = host.address.slice(1, -1);
      return { kind: "ip-literal", host: host.address, address, category: classifyAddress(address).category };
    }
    case "name": {
      const why = privateNameReason(host.name);
      return why === null ? { kind: "name", host: host.name } : { kind: "private-name", host: host.name, why };
    }
  }
}

/**
 * The refusal for a host that is no allowable name, in every mode and whatever a policy
 * lists: an IP literal (`ip-literal`), or a name private by convention (`private-address`, a
 * guarantee no policy, lesson or link can lift: docs/decisions/0028-material-from-a-link-is-untrusted.md).
 */
export function refuseHost(raw: string, host: Exclude<HostReading, { kind: "name" | "invalid" }>, by: Decider): Verdict {
  if (host.kind === "ip-literal") return refuse("ip-literal", `${raw} is an IP address (${host.host}); only names can be allowed`, by);
  return refuse(
    "private-address",
    `${host.why}; a private destination is refused before any fetch, in every mode and whatever the policy names`,
    by,
  );
}

/**
 * The form two hosts are compared in (`HOST.` and `host` are equal): the reading's host, or
 * for a string that is no host at all, the string lowercased, so it equals only itself.
 */
export function hostKey(raw: string): string {
  const reading = readHost(raw);
  return reading.kind === "invalid" ? raw.toLowerCase() : reading.host;
}

/**
 * Why a normalised name (lowercase, no trailing dot: a `readHost` name) is private by
 * convention, or null when it may be public. A public name that merely resolves to a private
 * address is not seen here: that takes DNS (the CLI and the relay check the address).
 */
export function privateNameReason(name: string): string | null {
  for (const [zone, why] of PRIVATE_ZONES) if (name === zone || name.endsWith(`.${zone}`)) return `${name} is ${why}`;
  if (!name.includes(".")) return `${name} is a single-label name (resolved by the local network's search domains)`;
  const embedded = embeddedAddress(name);
  if (embedded) return `${name} spells the ${embedded.category} address ${embedded.address} (an IP-echo name like nip.io or sslip.io)`;
  return null;
}

/** A non-public address that a name's labels spell (`127-0-0-1.nip.io`, `10.0.0.1.nip.io`, `7f000001.nip.io`, `--1.sslip.io`). */
function embeddedAddress(name: string): { address: string; category: AddressCategory } | null {
  // From every run of digits, so overlapping spellings (`1-10-0-0-1`) are all tried.
  for (let start = 0; start < name.length; start++) {
    if (!isDigit(name[start]) || isDigit(name[start - 1])) continue;
    const found = decimalAt(name, start);
    if (found) return found;
  }
  for (const label of name.split(".")) {
    for (const piece of label.split("-")) {
      const hex = hexAddress(piece);
      const category = hex === null ? null : classifyAddress(hex).category;
      if (hex !== null && category !== null && SPELLED_REFUSED.has(category)) return { address: hex, category };
    }
    // sslip.io spells IPv6 with dashes for colons (`--1` is ::1, `fe80--1` is fe80::1).
    if (label.includes("--") && !label.startsWith("xn--")) {
      const v6 = label.replace(/-/g, ":");
      const category = parseIPv6(v6) ? classifyAddress(v6).category : null;
      if (category !== null && SPELLED_REFUSED.has(category)) return { address: v6, category };
    }
  }
  return null;
}

const isDigit = (char: string | undefined) => char !== undefined && char >= "0" && char <= "9";

function decimalAt(name: string, start: number): { address: string; category: AddressCategory } | null {
  DECIMAL_AT.lastIndex = start;
  const match = DECIMAL_AT.exec(name);
  if (!match) return null;
  const address = match.slice(1, 5).map(Number).join(".");
  if (!parseIPv4Dotted(address)) return null;
  const { category } = classifyAddress(address);
  return category === "public" ? null : { address, category };
}

/** `7f000001` (8 hex digits) or `a000803` (7, a leading zero dropped) as a dotted quad; a digit is required, so words are not read. */
function hexAddress(piece: string): string | null {
  if (!/^[0-9a-f]{7,8}$/.test(piece) || !/\d/.test(piece)) return null;
  const value = Number.parseInt(piece, 16);
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join(".");
}

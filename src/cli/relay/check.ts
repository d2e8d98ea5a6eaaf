import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { refuse, type Verdict } from "../../log";
import { readHost, refuseHost } from "../../policy";
import { createGuardedFetch, type Lookup, lookupWithTable } from "../guarded-fetch";

/**
 * Whether the relay may open a stream, and to which address. Decided before any connection:
 * the port first (no DNS for a refused port), then the CLI's one address check
 * (`createGuardedFetch().resolveHost`): the name is resolved once, every address it resolves to
 * must be public (`classifyAddress`), and the stream connects only to the address returned here.
 */

export const DEFAULT_PORTS: readonly number[] = [443, 80];
/** DNS's bounds on a name (RFC 1035 2.3.4, as text without the trailing dot) and on one label. */
const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

export interface RelayRules {
  /** Destination ports allowed (443 and 80, plus `--allow-ports`). */
  ports: ReadonlySet<number>;
  /** TEST ONLY (`--allow-private-for-tests`): non-public addresses that may be destinations. */
  allowPrivateForTests: ReadonlySet<string>;
  /** TEST ONLY (`--resolve NAME=IP`): names answered without DNS. */
  resolve: ReadonlyMap<string, string>;
  /** DNS for every other name (tests inject one; default `dns.lookup`). */
  lookup?: Lookup;
}

/** A refused stream has a refusing verdict; an allowed one also has the checked address. */
export type StreamDecision = { verdict: Verdict; address?: undefined } | { verdict: Verdict & { allowed: true }; address: string };

export type StreamCheck = (name: string, port: number) => Promise<StreamDecision>;

export function createStreamCheck(rules: RelayRules): StreamCheck {
  const system: Lookup = rules.lookup ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));
  // An IP literal is its own answer, and a `--resolve` name is answered from the table: neither asks DNS.
  const lookup = lookupWithTable(rules.resolve, system);
  const guard = createGuardedFetch({ allowPrivateForTests: rules.allowPrivateForTests, lookup });
  const allowedPorts = [...rules.ports].sort((a, b) => a - b).join(", ");

  return async (name, port) => {
    if (!rules.ports.has(port))
      return {
        verdict: refuse("port-not-allowed", `port ${port} is not allowed; the relay connects only to ports ${allowedPorts}`, "proxy"),
      };
    const host = destinationHost(name);
    if (typeof host !== "string") return { verdict: host };
    const resolution = await guard.resolveHost(host);
    if (!resolution.verdict.allowed || resolution.address === undefined) {
      const { verdict } = resolution;
      return { verdict: verdict.allowed ? refuse("upstream-error", `${host} resolved to no address`, "proxy") : verdict };
    }
    return { verdict: { ...resolution.verdict, allowed: true }, address: resolution.address };
  };
}

/**
 * The host to resolve, read as the proxy reads it (`readHost`): an IP literal as its address
 * (bare or bracketed IPv6; any IPv4 spelling the URL parser accepts, as its dotted quad; its
 * address is then checked like any resolved one), a name lowercased without its trailing dot.
 * A name private by convention is refused `private-address` before any DNS; anything else
 * that is no host is refused, so no odd string reaches the resolver: a name past DNS's own
 * bounds (253 characters, 63 a label) too, which no resolver could answer.
 */
export function destinationHost(raw: string): string | Verdict {
  const host = readHost(raw);
  switch (host.kind) {
    case "name":
      return host.host.length > MAX_NAME_LENGTH || host.host.split(".").some((label) => label.length > MAX_LABEL_LENGTH)
        ? refuse(
            "bad-request",
            `the stream's destination is not a host: a name of ${host.host.length} characters (DNS allows ${MAX_NAME_LENGTH}, ${MAX_LABEL_LENGTH} a label)`,
            "proxy",
          )
        : host.host;
    case "ip-literal":
      return host.address;
    case "private-name":
      return refuseHost(raw, host, "proxy");
    case "invalid":
      return refuse("bad-request", `the stream's destination is not a host: ${host.reason}`, "proxy");
  }
}

/**
 * `--resolve NAME=IP` entries as a map (name normalised as `destinationHost` does), or the
 * first entry that is not one.
 */
export function parseResolveEntries(entries: readonly string[]): ReadonlyMap<string, string> | { error: string } {
  const map = new Map<string, string>();
  for (const entry of entries) {
    const at = entry.indexOf("=");
    const name = at > 0 ? destinationHost(entry.slice(0, at)) : null;
    const address = entry.slice(at + 1).replace(/^\[(.*)\]$/, "$1");
    if (typeof name !== "string" || isIP(name) !== 0 || isIP(address) === 0)
      return { error: `--resolve ${JSON.stringify(entry)} is not NAME=IP (a host name and an IP address)` };
    map.set(name, address);
  }
  return map;
}

/** A comma-separated list of ports (`--allow-ports`), or null if one is not a port 1–65535. */
export function parsePorts(text: string): number[] | null {
  const ports = text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (ports.length === 0 || ports.some((p) => !/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535)) return null;
  return ports.map(Number);
}

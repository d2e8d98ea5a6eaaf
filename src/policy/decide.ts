import { allow, refuse, type Verdict } from "../log";
import { readHost, refuseHost } from "./host";
import type { EndpointRule, HostRule, Policy, PolicyMode } from "./schema";

/**
 * `decide(policy, request) → Verdict`: pure and synchronous, no I/O. Every
 * refusal is one statement with its code and reason (as smokescreen's `acl.go` does; docs/decisions/0007-how-the-code-is-shaped.md).
 *
 * The URL is split by hand, with the WHATWG delimiters (`/ \ ? #`), and the request that is
 * fetched is rebuilt from the pieces that were checked: what was decided is what is fetched.
 */

export type PolicyRequest =
  /** An absolute URL, as in an absolute-form request line or a `/v0/fetch` body. */
  | { method: string; url: string }
  /** A CONNECT request's authority, `host:port`. */
  | { method: "CONNECT"; authority: string };

/** What an allowed request will be fetched as. */
export interface Target {
  scheme: "https" | "http";
  /** Normalised name: lowercase, punycode, no trailing dot. */
  host: string;
  port: number;
  /** The canonical path (no query): the one the policy checked and the one fetched (README "Paths"). */
  path: string;
  /** The query including `?`, or "". */
  query: string;
  /** The URL to fetch, rebuilt from the checked pieces. */
  url: string;
  /** True when an `http://` request was upgraded to `https://` by policy. */
  upgraded: boolean;
}

export interface Decision {
  verdict: Verdict;
  /** Present when the request could be parsed far enough to name a target. */
  target: Target | null;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DEFAULT_PORT = { https: 443, http: 80 } as const;

export function decide(policy: Policy, request: PolicyRequest): Verdict {
  return evaluate(policy, request).verdict;
}

/** `decide`, plus the target the verdict was about (what the proxy fetches). */
export function evaluate(policy: Policy, request: PolicyRequest): Decision {
  if ("authority" in request) return evaluateConnect(policy, request.authority);
  if (!TOKEN.test(request.method))
    return refused(refuse("bad-request", `${JSON.stringify(request.method)} is not an HTTP method token`, "proxy"));
  return evaluateUrl(policy, request.method, request.url);
}

function refused(verdict: Verdict, target: Target | null = null): Decision {
  return { verdict, target };
}

function evaluateConnect(policy: Policy, authority: string): Decision {
  const split = splitHostPort(authority);
  if (!split.ok) return refused(refuse("bad-request", `CONNECT ${JSON.stringify(authority)}: ${split.reason}`, "proxy"));
  if (split.port === null) return refused(refuse("bad-request", `CONNECT ${authority} names no port; CONNECT needs host:port`, "proxy"));
  const host = readHost(split.host);
  if (host.kind === "invalid") return refused(refuse("bad-request", `CONNECT ${authority}: ${host.reason}`, "proxy"));
  if (host.kind === "ip-literal") return refused(refuseHost(split.host, host, "proxy"));
  const target: Target = {
    scheme: "https",
    host: host.host,
    port: split.port,
    path: "/",
    query: "",
    url: buildUrl("https", host.host, split.port, "/", ""),
    upgraded: false,
  };
  // Before the policy is read: no rule and no mode lifts it (docs/decisions/0028-material-from-a-link-is-untrusted.md).
  if (host.kind === "private-name") return refused(refuseHost(split.host, host, "proxy"), target);
  const rule = findHostRule(policy, host.host);
  const hostRefusal = rule ? null : refuse("host-not-allowed", `${host.host} is not on the allowlist`, "proxy");
  if (hostRefusal && modeOf(policy, rule) === "enforce") return refused(hostRefusal, target);
  if (!portAllowed(policy, rule, split.port))
    return refused(refuse("port-not-allowed", `port ${split.port} is not allowed for ${host.host}`, "proxy"), target);
  if (hostRefusal) return { verdict: reported(hostRefusal, `${host.host}:${split.port}: the tunnel may open`), target };
  return { verdict: allow(`${host.host}:${split.port} is on the allowlist; the tunnel may open`, "proxy"), target };
}

function evaluateUrl(policy: Policy, method: string, url: string): Decision {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return refused(refuse("bad-request", `${JSON.stringify(url.slice(0, 80))} is not an absolute URL`, "proxy"));
  if (scheme !== "https" && scheme !== "http")
    return refused(refuse("not-https", `${scheme}: is not https; only https upstreams are allowed`, "proxy"));
  if (/[\x00-\x20\x7f]/.test(url)) return refused(refuse("bad-request", "the URL contains a space or control character", "proxy"));
  const afterScheme = url.slice(scheme.length + 1);
  if (!/^[/\\]{2}/.test(afterScheme) || /^[/\\]{3}/.test(afterScheme))
    return refused(refuse("bad-request", `${scheme}: URL without a host (expected ${scheme}://host/…)`, "proxy"));
  const rest = afterScheme.slice(2);
  const authorityEnd = rest.search(/[/\\?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const pathAndMore = authorityEnd === -1 ? "" : rest.slice(authorityEnd).split("#")[0]!;
  if (authority.includes("@"))
    return refused(refuse("bad-request", "the URL carries userinfo (user@host); credentials in URLs are refused", "proxy"));
  const split = splitHostPort(authority);
  if (!split.ok) return refused(refuse("bad-request", split.reason, "proxy"));
  const host = readHost(split.host);
  if (host.kind === "invalid") return refused(refuse("bad-request", host.reason, "proxy"));
  if (host.kind === "ip-literal") return refused(refuseHost(split.host, host, "proxy"));

  const upgraded = scheme === "http" && policy.http === "upgrade";
  const fetchScheme: "https" | "http" = scheme === "http" && !upgraded ? "http" : "https";
  // An upgraded http URL keeps an explicit non-default port and otherwise goes to 443.
  const port = split.port === null || (upgraded && split.port === DEFAULT_PORT.http) ? DEFAULT_PORT[fetchScheme] : split.port;

  const queryStart = pathAndMore.indexOf("?");
  const rawPath = queryStart === -1 ? pathAndMore : pathAndMore.slice(0, queryStart);
  const query = queryStart === -1 ? "" : canonicalQuery(pathAndMore.slice(queryStart));
  const path = canonicalRequestPath(rawPath === "" ? "/" : rawPath);
  const target: Target = {
    scheme: fetchScheme,
    host: host.host,
    port,
    path: path.ok ? path.path : rawPath,
    query,
    url: buildUrl(fetchScheme, host.host, port, path.ok ? path.path : "/", query),
    upgraded,
  };
  // Before the policy is read: no rule and no mode lifts it (docs/decisions/0028-material-from-a-link-is-untrusted.md).
  if (host.kind === "private-name") return refused(refuseHost(split.host, host, "proxy"), target);
  if (scheme === "http" && policy.http === "refuse")
    return refused(refuse("not-https", `http://${host.host} is not https and the policy refuses http`, "proxy"));
  const rule = findHostRule(policy, host.host);
  const mode = modeOf(policy, rule);
  const hostRefusal = rule ? null : refuse("host-not-allowed", `${host.host} is not on the allowlist`, "proxy");
  if (hostRefusal && mode === "enforce") return refused(hostRefusal, target);
  if (!portAllowed(policy, rule, port))
    return refused(refuse("port-not-allowed", `port ${port} is not allowed for ${host.host}`, "proxy"), target);
  // A path we cannot read the way every server would is refused in every mode: it is not a rule of the policy.
  if (!path.ok)
    return refused(
      refuse("endpoint-not-allowed", `${method} ${host.host}: the path ${path.reason}, so it matches no rule`, "proxy"),
      target,
    );
  const note = upgraded ? " (http:// upgraded to https:// by policy)" : "";
  const served = `${method} ${host.host}${path.path} is served${note}`;
  if (hostRefusal) return { verdict: reported(hostRefusal, served), target };
  if (rule?.endpoints && !anyEndpointMatches(rule.endpoints, method, path.path)) {
    const endpointRefusal = refuse("endpoint-not-allowed", `${method} ${path.path} is not an allowed endpoint of ${host.host}`, "proxy");
    if (mode === "enforce") return refused(endpointRefusal, target);
    return { verdict: reported(endpointRefusal, served), target };
  }
  return { verdict: allow(`${method} ${host.host}${path.path} is allowed${note}`, "proxy"), target };
}

/** The mode that applies to a host: its rule's, else the policy's, else `enforce`. */
export function modeOf(policy: Policy, rule: HostRule | undefined): PolicyMode {
  return rule?.mode ?? policy.mode ?? "enforce";
}

/** A refusal the policy's report mode turns into an allowed verdict that says what would have been refused. */
function reported(refusal: Verdict, served: string): Verdict {
  return {
    ...allow(`report mode: ${served}, though the allowlist would refuse it (${refusal.code})`, "proxy"),
    wouldRefuse: refusal.code,
    wouldRefuseReason: refusal.reason,
  };
}

type HostPort = { ok: true; host: string; port: number | null } | { ok: false; reason: string };

function splitHostPort(authority: string): HostPort {
  let host: string;
  let portText: string;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close === -1) return { ok: false, reason: `${JSON.stringify(authority)} has an unterminated IPv6 literal` };
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== "" && !after.startsWith(":"))
      return { ok: false, reason: `${JSON.stringify(authority)} has text after the IPv6 literal` };
    portText = after.slice(1);
  } else {
    const colon = authority.indexOf(":");
    host = colon === -1 ? authority : authority.slice(0, colon);
    portText = colon === -1 ? "" : authority.slice(colon + 1);
  }
  if (host === "") return { ok: false, reason: "the host is empty; a name is required" };
  if (portText === "") return { ok: true, host, port: null };
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535 || Number(portText) === 0)
    return { ok: false, reason: `${JSON.stringify(portText)} is not a valid port` };
  return { ok: true, host, port: Number(portText) };
}

function buildUrl(scheme: "https" | "http", host: string, port: number, path: string, query: string): string {
  const portPart = port === DEFAULT_PORT[scheme] ? "" : `:${port}`;
  return `${scheme}://${host}${portPart}${path}${query}`;
}

/** The rule for a name: an exact rule first, then the longest `*.` suffix rule. */
export function findHostRule(policy: Policy, name: string): HostRule | undefined {
  const index = hostIndexOf(policy.hosts);
  const exact = index.exact.get(name);
  if (exact) return exact;
  // The longest suffix is the one that starts at the first dot; `.example.com` matches subdomains only, never the apex.
  for (let dot = name.indexOf("."); dot !== -1; dot = name.indexOf(".", dot + 1)) {
    const rule = index.wildcard.get(name.slice(dot));
    if (rule) return rule;
  }
  return undefined;
}

interface HostIndex {
  exact: Map<string, HostRule>;
  /** By suffix (`.example.com` for `*.example.com`). */
  wildcard: Map<string, HostRule>;
}

/**
 * The host rules by name, built once per policy: a lookup costs the name's labels, not the
 * policy's rules (a drafted policy may hold thousands; a replay asks once per logged line).
 * Policies are parsed once and never changed in place, so the rules array is the key.
 */
const hostIndexes = new WeakMap<readonly HostRule[], HostIndex>();
function hostIndexOf(hosts: readonly HostRule[]): HostIndex {
  let index = hostIndexes.get(hosts);
  if (index) return index;
  index = { exact: new Map(), wildcard: new Map() };
  for (const rule of hosts) {
    const [map, key] = rule.host.startsWith("*.") ? [index.wildcard, rule.host.slice(1)] : [index.exact, rule.host];
    if (!map.has(key)) map.set(key, rule);
  }
  hostIndexes.set(hosts, index);
  return index;
}

function portAllowed(policy: Policy, rule: HostRule | undefined, port: number): boolean {
  return (rule?.ports ?? policy.ports).includes(port);
}

/** Whether an endpoint rule allows a method on a canonical path. */
export function endpointMatches(rule: EndpointRule, method: string, path: string): boolean {
  if (!rule.methods.includes("*") && !rule.methods.includes(method)) return false;
  // The prefix is compared in the path's own form, so `/a"b/` still matches `/a%22b/x`.
  return rule.paths.some((prefix) => pathHasPrefix(path, canonicalEscapes(prefix)));
}

interface EndpointIndex {
  /** Prefixes (in the path's own form) by method; `*` for any method. */
  byMethod: Map<string, Set<string>>;
  longest: number;
}

/**
 * The endpoint rules' prefixes by method, built once per rule: a prefix that matches a path is
 * one of the path's heads (up to a slash, or just before one, or the path itself), so a lookup
 * costs the path's slashes, not the rule's prefixes.
 */
const endpointIndexes = new WeakMap<readonly EndpointRule[], EndpointIndex>();
function endpointIndexOf(endpoints: readonly EndpointRule[]): EndpointIndex {
  let index = endpointIndexes.get(endpoints);
  if (index) return index;
  index = { byMethod: new Map(), longest: 0 };
  for (const endpoint of endpoints)
    for (const method of endpoint.methods) {
      const set = index.byMethod.get(method) ?? new Set<string>();
      index.byMethod.set(method, set);
      for (const prefix of endpoint.paths) {
        const canonical = canonicalEscapes(prefix);
        set.add(canonical);
        index.longest = Math.max(index.longest, canonical.length);
      }
    }
  endpointIndexes.set(endpoints, index);
  return index;
}

/** Whether any of a host's endpoint rules allows a method on a canonical path (`endpointMatches` over all, by lookup). */
export function anyEndpointMatches(endpoints: readonly EndpointRule[], method: string, path: string): boolean {
  const index = endpointIndexOf(endpoints);
  const sets = [index.byMethod.get(method), index.byMethod.get("*")].filter((set) => set !== undefined);
  const has = (head: string) => sets.some((set) => set.has(head));
  if (has(path)) return true;
  for (let at = path.indexOf("/"); at !== -1 && at <= index.longest; at = path.indexOf("/", at + 1)) {
    if (has(path.slice(0, at + 1))) return true;
    if (at > 0 && has(path.slice(0, at))) return true;
  }
  return false;
}

/** `/repos/` matches what starts with it; `/zen` matches `/zen` and `/zen/…`, not `/zenith`. */
export function pathHasPrefix(path: string, prefix: string): boolean {
  if (prefix.endsWith("/")) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
// What the WHATWG URL parser percent-encodes in a path (its path percent-encode set, less space,
// `#` and `?`, which cannot reach a path here). Encoded by us first, the path we checked is the
// one `fetch()` and `new URL()` send, byte for byte.
const WHATWG_PATH_ENCODES = /["<>^`{}]/g;

export type CanonicalRequestPath = { ok: true; path: string } | { ok: false; reason: string };

/**
 * The one form a path is matched in and sent upstream in (README "Paths"): percent-encoded
 * unreserved characters are decoded, other escapes are uppercased, and what a browser would
 * encode is encoded. Anything a server might read differently from us never matches:
 * backslashes, encoded slashes, dot-segments in any spelling a server may decode or strip into
 * one (`%2e`, `..;x`, `..%3B`, `.. `), `%25` (double encoding), encoded control characters,
 * escapes that are not UTF-8 (overlong `%C0%AF`), malformed escapes.
 */
export function canonicalRequestPath(raw: string): CanonicalRequestPath {
  if (!raw.startsWith("/")) return { ok: false, reason: "does not start with /" };
  if (/\\|%5c/i.test(raw)) return { ok: false, reason: "contains a backslash" };
  // A server that decodes %2F before splitting sees segments we never checked (`..%2F..%2Fx`).
  if (/%2f/i.test(raw)) return { ok: false, reason: "contains an encoded slash (%2F)" };
  if (/%25/.test(raw)) return { ok: false, reason: "contains %25 (double percent-encoding)" };
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return { ok: false, reason: "contains a malformed percent escape" };
  if (/[^\x21-\x7e]/.test(raw)) return { ok: false, reason: "contains a character that must be percent-encoded" };
  if (/%(?:[01][0-9A-Fa-f]|7f)/i.test(raw)) return { ok: false, reason: "contains an encoded control character" };
  if (percentDecode(raw) === null) return { ok: false, reason: "does not percent-decode to UTF-8" };
  const path = canonicalEscapes(raw);
  if (path.split("/").some(readsAsDotSegment))
    return { ok: false, reason: "contains a dot-segment (. or .., also as %2e, with ;parameters or trailing spaces)" };
  return { ok: true, path };
}

/** Decodes unreserved escapes, uppercases the rest, encodes what WHATWG would (idempotent). */
function canonicalEscapes(text: string): string {
  return text
    .replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
      const char = String.fromCharCode(Number.parseInt(hex, 16));
      return UNRESERVED.test(char) ? char : encoded.toUpperCase();
    })
    .replace(WHATWG_PATH_ENCODES, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * True when some server may treat the segment as `.` or `..`: after decoding every escape,
 * dropping `;parameters` (Tomcat, Jetty: `..;x`) and trailing dots and spaces (Windows, IIS).
 */
function readsAsDotSegment(segment: string): boolean {
  // Without a dot or an escape it cannot read as one: most segments, cheaply.
  if (!segment.includes(".") && !segment.includes("%")) return false;
  const decoded = percentDecode(segment) ?? segment;
  const bare = decoded.split(";", 1)[0] ?? "";
  return bare.includes(".") && /^[. ]+$/.test(bare);
}

const ASCII = /^[\x00-\x7f]*$/;
// One decoder for every call: `decode` without `stream` starts afresh each time, and after a fatal error.
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Every escape decoded as UTF-8, or null when the bytes are not UTF-8. */
function percentDecode(text: string): string | null {
  // No escape and only ASCII: it decodes to itself (a log of 100,000 paths is read in a replay).
  if (!text.includes("%") && ASCII.test(text)) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "%") {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i));
  }
  try {
    return STRICT_UTF8.decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
}

/** A query as a browser sends it: what WHATWG encodes in a special URL's query (UTF-8), encoded. */
function canonicalQuery(query: string): string {
  return query.replace(/["'<>]|[^\x00-\x7f]+/g, (text) =>
    Array.from(new TextEncoder().encode(text), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}

import { refuse, type Verdict } from "../log";
import { readHost } from "../policy";

/**
 * A URL reduced to what prefix matching compares (`allowed_remote_resources`):
 * host, explicit port (or none), and the path in two forms — with only unreserved escapes
 * decoded (what the server is asked for) and fully percent-decoded (what a server that
 * decodes would see) — both after dot-segment removal. A URL is under a prefix only when
 * BOTH forms are, so an escape can never move a path into or out of an allowed tree.
 */
export interface MatchKey {
  host: string;
  port: string;
  path: string;
  decodedPath: string;
}

export type MatchKeyResult = { ok: true; key: MatchKey } | { ok: false; reason: string };

const UNRESERVED = /[A-Za-z0-9\-._~]/;

function removeDotSegments(path: string): string {
  const out: string[] = [];
  const segments = path.split("/");
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment === ".") continue;
    if (segment === "..") {
      if (out.length > 1) out.pop();
      continue;
    }
    out.push(segment);
  }
  // A trailing "." or ".." names a directory: keep the trailing slash.
  const last = segments[segments.length - 1];
  if ((last === "." || last === "..") && out[out.length - 1] !== "") out.push("");
  return out.join("/") || "/";
}

/** Upper-cases escape hex and decodes escapes of unreserved characters (RFC 3986 §6.2.2). */
function normalizeEscapes(path: string): string {
  return path.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

function decodeFully(path: string): string | null {
  const bytes: number[] = [];
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x25) {
      const hex = path.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (c < 0x80) bytes.push(c);
    else return null; // WHATWG has already escaped non-ASCII
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/** Builds the match key, or says why this URL can never match any prefix. */
export function matchKey(raw: string): MatchKeyResult {
  // Checks on the raw text, before a lenient parser can rewrite it.
  if (raw.includes("\\")) return { ok: false, reason: "a backslash never matches an allowlist entry" };
  if (/[\u0000-\u0020\u007f]/.test(raw)) return { ok: false, reason: "whitespace or control characters never match an allowlist entry" };
  if (/%25/.test(raw)) return { ok: false, reason: "%25 (an escaped %) never matches an allowlist entry" };
  if (!/^https:\/\//i.test(raw)) return { ok: false, reason: "only https:// URLs can match an allowlist entry" };
  const authority = raw.slice(8).split(/[/?#]/, 1)[0] ?? "";
  if (authority.includes("@")) return { ok: false, reason: "a URL with userinfo never matches an allowlist entry" };
  const portMatch = /:(\d*)$/.exec(authority);
  if (portMatch && portMatch[1] === "") return { ok: false, reason: "an empty port never matches an allowlist entry" };
  const port = portMatch ? String(Number(portMatch[1])) : "";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a parseable URL" };
  }
  // Read as the proxy and the CLI read it: `HOST.` is `host`. A private name may match (the
  // resolver's `checkRemoteUrl` refuses it private-address, naming the resource); an IP never does.
  const host = readHost(url.hostname);
  if (host.kind === "invalid") return { ok: false, reason: `the host never matches an allowlist entry: ${host.reason}` };
  if (host.kind === "ip-literal") return { ok: false, reason: "an IP literal never matches an allowlist entry" };
  const path = removeDotSegments(normalizeEscapes(url.pathname));
  const decoded = decodeFully(url.pathname);
  if (decoded === null) return { ok: false, reason: "the path does not percent-decode to UTF-8" };
  // Servers that strip path parameters (`..;x` → `..`) or trim dots and spaces read these
  // segments as "." or "..", so a prefix check after our dot removal would not be theirs.
  if (decoded.split("/").some((segment) => /^\.+(;|\s|$)/.test(segment) && !/^\.{1,2}$/.test(segment)))
    return { ok: false, reason: "a dot-segment with parameters, spaces or extra dots never matches an allowlist entry" };
  return { ok: true, key: { host: host.host, port, path, decodedPath: removeDotSegments(decoded) } };
}

/** A parsed allowlist entry: an https URL ending in `/` with no query or fragment. */
export interface AllowlistEntry {
  raw: string;
  key: MatchKey;
}

export function parseAllowlistEntry(raw: string): { ok: true; entry: AllowlistEntry } | { ok: false; reason: string } {
  if (!raw.endsWith("/")) return { ok: false, reason: `${raw} does not end in "/"` };
  if (/[?#]/.test(raw)) return { ok: false, reason: `${raw} has a query or fragment` };
  const result = matchKey(raw);
  if (!result.ok) return { ok: false, reason: `${raw}: ${result.reason}` };
  if (!result.key.path.endsWith("/") || !result.key.decodedPath.endsWith("/"))
    return { ok: false, reason: `${raw} does not name a directory` };
  return { ok: true, entry: { raw, key: result.key } };
}

/** Exact host, same explicit port (a `:443` is not the default), path under both forms. */
export function covers(entry: AllowlistEntry, key: MatchKey): boolean {
  return (
    entry.key.host === key.host &&
    entry.key.port === key.port &&
    key.path.startsWith(entry.key.path) &&
    key.decodedPath.startsWith(entry.key.decodedPath)
  );
}

/**
 * A URL passes if an org-level or a harness-level entry covers it. Harness entries have already been checked to be a subset of the org's.
 */
export function checkAllowlisted(url: string, org: readonly AllowlistEntry[], harness: readonly AllowlistEntry[]): Verdict {
  const key = matchKey(url);
  if (!key.ok) return refuse("not-allowlisted", `${url.slice(0, 200)}: ${key.reason}`, "resolver");
  const hit = org.find((e) => covers(e, key.key)) ?? harness.find((e) => covers(e, key.key));
  if (!hit) {
    const listed = [...org, ...harness].map((e) => e.raw).join(", ") || "(empty)";
    return refuse("not-allowlisted", `${url.slice(0, 200)} is under no allowed_remote_resources entry (${listed})`, "resolver");
  }
  return { allowed: true, code: "served", reason: `covered by ${hit.raw}`, by: "resolver" };
}

/**
 * Every harness-level entry must lie under an org-level entry,
 * checked before anything is fetched. Returns the refusal naming the first offending entry.
 */
export function checkSubset(
  harness: readonly AllowlistEntry[],
  org: readonly AllowlistEntry[],
  field = "allowed_remote_resources",
): Verdict | null {
  for (const [i, entry] of harness.entries()) {
    if (!org.some((o) => covers(o, entry.key))) {
      return refuse(
        "allowlist-not-subset",
        `${field}[${i}] ${entry.raw} is not under any org-level allowed_remote_resources entry`,
        "resolver",
      );
    }
  }
  return null;
}

import { refuse, type Verdict } from "../log";
import { readHost, refuseHost } from "../policy";

/**
 * The fetch-level SSRF rules for one URL (docs/decisions/0020-resolver-reference-agreement.md): https only (spelled `https://` exactly:
 * an upper-case `HTTPS://` is refused, not normalised), a name (not an IP) as host, no
 * credentials in the URL, and no name private by convention (`readHost`, the reading the proxy
 * and the CLI make). Allowlisting and the port rule are separate (allowlist.ts,
 * `checkPort`).
 */
export function checkRemoteUrl(raw: string): Verdict | null {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1];
  if (scheme !== undefined && scheme !== "https")
    return refuse("not-https", `${scheme.slice(0, 20)} is not https; remote resources are fetched over https:// only`, "resolver");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("not-https", `${raw.slice(0, 200)} is not a parseable https URL`, "resolver");
  }
  if (url.protocol !== "https:")
    return refuse("not-https", `${url.protocol.replace(/:$/, "")} is not https; remote resources are fetched over https only`, "resolver");
  const host = readHost(url.hostname);
  if (host.kind === "invalid") return refuse("bad-request", `${raw.slice(0, 200)}: ${host.reason}`, "resolver");
  if (host.kind !== "name") return refuseHost(url.hostname, host, "resolver");
  if (url.username !== "" || url.password !== "")
    return refuse("not-allowlisted", "a URL carrying credentials is never fetched", "resolver");
  return null;
}

/**
 * The port rule for a resource URL: no explicit port, or `:443`, passes; any other explicit
 * port is `port-not-allowed` unless `listed(host, port)` says the org config lists it.
 * Which addresses a name resolves to is the host's guarded fetch's business, not this one's.
 */
export function checkPort(raw: string, listed: (host: string, port: string) => boolean): Verdict | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null; // checkRemoteUrl refuses it
  }
  // WHATWG drops a default port, so an explicit ":443" reads as "" here.
  if (url.port === "" || listed(url.hostname, url.port)) return null;
  return refuse(
    "port-not-allowed",
    `${url.host} names port ${url.port}; only 443 is fetched unless an org allowed_remote_resources entry lists that port`,
    "resolver",
  );
}

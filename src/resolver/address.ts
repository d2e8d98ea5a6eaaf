import { refuse, type Verdict } from "../log";

/**
 * What kind of host a URL names (style.md: classify separately from deciding). WHATWG URL
 * parsing has already turned every IPv4 spelling (`0x7f.1`, `2130706433`, `017700000001`)
 * into a dotted quad, and IPv6 into brackets, so these two tests cover "any spelling".
 */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * The fetch-level SSRF rules of ADR 38 for one URL: https only, a name (not an IP) as host,
 * no credentials in the URL. Allowlisting is separate (allowlist.ts).
 */
export function checkRemoteUrl(raw: string): Verdict | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("not-https", `${raw.slice(0, 200)} is not a parseable https URL`, "resolver");
  }
  if (url.protocol !== "https:")
    return refuse("not-https", `${url.protocol.replace(/:$/, "")} is not https; remote resources are fetched over https only`, "resolver");
  if (isIpLiteral(url.hostname)) return refuse("ip-literal", `${url.hostname} is an IP address; only names can be fetched`, "resolver");
  if (url.username !== "" || url.password !== "")
    return refuse("not-allowlisted", "a URL carrying credentials is never fetched", "resolver");
  return null;
}

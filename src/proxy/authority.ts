import { hostKey } from "../policy";
import type { TunnelContext } from "./types";

/** Request authorities (`host[:port]`) compared the way the URL parser normalises them. */

export function tunnelAuthority(tunnel: TunnelContext): string {
  return tunnel.port === 443 ? tunnel.host : `${tunnel.host}:${tunnel.port}`;
}

/** `host[:port]` as the URL parser normalises it (lowercase, punycode, default port dropped, no trailing dot). */
export function normaliseAuthority(authority: string, scheme: string): string | null {
  if (/[/\\?#@\s]/.test(authority)) return null;
  try {
    const url = new URL(`${scheme}://${authority}/`);
    const host = hostKey(url.hostname);
    return url.port === "" ? host : `${host}:${url.port}`;
  } catch {
    return null;
  }
}

export function authorityOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return normaliseAuthority(parsed.host, parsed.protocol.slice(0, -1));
  } catch {
    return null;
  }
}

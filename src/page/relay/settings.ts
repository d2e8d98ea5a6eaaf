import { z } from "zod";

/**
 * Where the page's Wisp relay is (docs/guide.md, "Reaching hosts without CORS"): `?relay=` for
 * this visit, else what the Policy panel kept in localStorage, else none. Only `wss://`, or
 * `ws://` to this machine's loopback (a relay started with `npx tab relay`): the relay sees
 * which host each stream goes to, so a plain-text WebSocket may not cross a network.
 */

export const RELAY_STORAGE_KEY = "tab.relay";

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

export const RelayUrl = z
  .string()
  .trim()
  .min(1, "the relay URL is empty")
  .max(2048, "the relay URL is longer than 2048 characters")
  .transform((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: "custom", message: `${JSON.stringify(text.slice(0, 80))} is not a URL` });
      return z.NEVER;
    }
    if (url.protocol !== "wss:" && url.protocol !== "ws:") {
      ctx.addIssue({ code: "custom", message: `a relay URL starts with wss:// (or ws:// to 127.0.0.1), not ${url.protocol}//` });
      return z.NEVER;
    }
    if (url.protocol === "ws:" && !LOOPBACK.test(url.hostname)) {
      ctx.addIssue({ code: "custom", message: `ws:// only reaches a relay on this machine (127.0.0.1); use wss:// for ${url.hostname}` });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: "custom", message: "a relay URL carries no user name or password" });
      return z.NEVER;
    }
    url.hash = "";
    // Wisp clients open the relay's root path: it ends with "/".
    if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
    return url.href;
  });

export type RelaySettingSource = "link" | "policy panel" | "none";

export type RelaySetting =
  | { ok: true; url: string | null; source: RelaySettingSource }
  | { ok: false; error: string; text: string; source: RelaySettingSource };

/** Parses a relay URL as typed or linked: the URL to use, or why not. */
export function parseRelayUrl(text: string): { ok: true; url: string } | { ok: false; error: string } {
  const parsed = RelayUrl.safeParse(text);
  return parsed.success ? { ok: true, url: parsed.data } : { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
}

/** The relay at page load: the link's `?relay=` (this visit only, never stored) wins over the stored one. */
export function initialRelaySetting(linked: string | null, storage: Pick<Storage, "getItem"> | null): RelaySetting {
  if (linked !== null) {
    const parsed = parseRelayUrl(linked);
    return parsed.ok ? { ok: true, url: parsed.url, source: "link" } : { ok: false, error: parsed.error, text: linked, source: "link" };
  }
  const stored = storage?.getItem(RELAY_STORAGE_KEY) ?? null;
  if (stored === null || stored === "") return { ok: true, url: null, source: "none" };
  const parsed = parseRelayUrl(stored);
  return parsed.ok
    ? { ok: true, url: parsed.url, source: "policy panel" }
    : { ok: false, error: parsed.error, text: stored, source: "policy panel" };
}

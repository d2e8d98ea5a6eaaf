import { createEmitter } from "../../platform";
import type { UpstreamFetch } from "../../proxy";
import { initialRelaySetting, parseRelayUrl, RELAY_STORAGE_KEY, type RelaySetting } from "./settings";
import { testTrustAnchors } from "./test-trust";
import { createWispRelayFetch, epoxyEngine, type RelayEngineFactory } from "./wisp-fetch";

/**
 * The page's relay setting, live: the proxy asks `current()` for every request, so a relay
 * set in the Policy panel applies to the next request. Without one, requests go through the
 * browser's fetch() as before.
 */
export interface PageRelay {
  /** The relay in use now, with its fetch, or null (the browser's fetch()). */
  current(): { url: string; fetch: UpstreamFetch } | null;
  setting(): RelaySetting;
  /** Sets the relay from the Policy panel and keeps it in localStorage; empty text clears it. */
  set(text: string): RelaySetting;
  /**
   * The relay the page's link names, while it waits for the reader's consent (the card,
   * docs/decisions/0028): until then the page opens no WebSocket to it. Null when the link names
   * none, or once it was accepted or declined.
   */
  proposed(): string | null;
  /** The reader accepted the link's card: the linked relay is used for this visit. */
  acceptProposed(): void;
  /** The reader declined it: it is never contacted. */
  declineProposed(): void;
  onChange(listener: (setting: RelaySetting) => void): () => void;
  /** How many TEST ONLY roots the page trusts besides the bundled ones (0 on every real visit). */
  readonly testAnchors: number;
  /** Why the test roots were ignored, if they were malformed. */
  readonly testAnchorsError: string | undefined;
}

export interface PageRelayOptions {
  /** The link's `?relay=` as written (src/page/link.ts), null when it has none. */
  linked: string | null;
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
  /** Where a test may define its extra roots (the page passes globalThis). */
  scope: object;
  open?: RelayEngineFactory;
}

export function createPageRelay(options: PageRelayOptions): PageRelay {
  const trust = testTrustAnchors(options.scope);
  const open = options.open ?? epoxyEngine;
  const listeners = createEmitter<RelaySetting>();
  // A link's relay is only proposed: the stored one (or none) stays until the reader accepts.
  const linked = options.linked === null ? null : initialRelaySetting(options.linked, null);
  let proposed = linked?.ok ? linked.url : null;
  let setting = linked && !linked.ok ? linked : initialRelaySetting(null, options.storage);
  let active: { url: string; fetch: UpstreamFetch } | null = null;
  const activate = () => {
    const url = setting.ok ? setting.url : null;
    if (url === active?.url) return;
    active = url === null ? null : { url, fetch: createWispRelayFetch(url, trust.anchors, open) };
  };
  activate();
  const changed = () => {
    listeners.emit(setting);
  };
  return {
    current: () => active,
    setting: () => setting,
    proposed: () => proposed,
    acceptProposed() {
      if (proposed === null) return;
      setting = { ok: true, url: proposed, source: "link" };
      proposed = null;
      activate();
      changed();
    },
    declineProposed() {
      if (proposed === null) return;
      proposed = null;
      changed();
    },
    set(text) {
      const trimmed = text.trim();
      if (trimmed === "") {
        options.storage?.removeItem(RELAY_STORAGE_KEY);
        setting = { ok: true, url: null, source: "none" };
      } else {
        const parsed = parseRelayUrl(trimmed);
        if (!parsed.ok) return { ok: false, error: parsed.error, text: trimmed, source: "policy panel" };
        options.storage?.setItem(RELAY_STORAGE_KEY, parsed.url);
        setting = { ok: true, url: parsed.url, source: "policy panel" };
      }
      proposed = null;
      activate();
      changed();
      return setting;
    },
    onChange: (listener) => listeners.subscribe(listener),
    testAnchors: trust.anchors.length,
    testAnchorsError: trust.error,
  };
}

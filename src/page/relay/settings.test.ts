import { describe, expect, it } from "vitest";
import { createPageRelay } from "./page-relay";
import { initialRelaySetting, parseRelayUrl, RELAY_STORAGE_KEY } from "./settings";
import { TEST_TRUST_ANCHORS_GLOBAL, testTrustAnchors } from "./test-trust";

function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe("the relay URL", () => {
  it.each([
    ["wss://relay.example.org/wisp/", "wss://relay.example.org/wisp/"],
    ["ws://127.0.0.1:5001", "ws://127.0.0.1:5001/"],
    ["  ws://localhost:5001/  ", "ws://localhost:5001/"],
    ["ws://[::1]:5001/", "ws://[::1]:5001/"],
  ])("accepts %s as %s", (text, url) => {
    expect(parseRelayUrl(text)).toEqual({ ok: true, url });
  });

  it.each([
    ["https://relay.example.org/", "wss://"],
    ["ws://relay.example.org/", "use wss:// for relay.example.org"],
    ["wss://user:pw@relay.example.org/", "no user name or password"],
    ["not a url", "is not a URL"],
    ["", "empty"],
  ])("refuses %s, saying why", (text, why) => {
    const parsed = parseRelayUrl(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.error).toContain(why);
  });
});

describe("where the relay setting comes from", () => {
  it("a ?relay= is only proposed: no relay from the link is used until the reader accepts the card", () => {
    const storage = memoryStorage({ [RELAY_STORAGE_KEY]: "wss://stored.example/" });
    const relay = createPageRelay({ linked: "ws://127.0.0.1:5001/", storage, scope: {} });
    expect(relay.proposed()).toBe("ws://127.0.0.1:5001/");
    expect(relay.current()?.url).toBe("wss://stored.example/");
    relay.acceptProposed();
    expect(relay.proposed()).toBeNull();
    expect(relay.setting()).toEqual({ ok: true, url: "ws://127.0.0.1:5001/", source: "link" });
    expect(relay.current()?.url).toBe("ws://127.0.0.1:5001/");
    expect(storage.items.get(RELAY_STORAGE_KEY)).toBe("wss://stored.example/");
  });

  it("a declined ?relay= is never used", () => {
    const relay = createPageRelay({ linked: "ws://127.0.0.1:5001/", storage: memoryStorage(), scope: {} });
    expect(relay.current()).toBeNull();
    relay.declineProposed();
    relay.acceptProposed();
    expect(relay.proposed()).toBeNull();
    expect(relay.current()).toBeNull();
  });

  it("uses the stored relay without a link, and none when nothing is stored", () => {
    expect(initialRelaySetting(null, memoryStorage({ [RELAY_STORAGE_KEY]: "wss://stored.example/" }))).toEqual({
      ok: true,
      url: "wss://stored.example/",
      source: "policy panel",
    });
    expect(initialRelaySetting(null, memoryStorage())).toEqual({ ok: true, url: null, source: "none" });
  });

  it("shows a bad ?relay= as an error and uses no relay", () => {
    const relay = createPageRelay({ linked: "http://x/", storage: memoryStorage(), scope: {} });
    expect(relay.setting()).toMatchObject({ ok: false, source: "link", text: "http://x/" });
    expect(relay.current()).toBeNull();
  });

  it("keeps a relay set in the Policy panel, applies it to the next request, and forgets it when cleared", () => {
    const storage = memoryStorage();
    const relay = createPageRelay({ linked: null, storage, scope: {} });
    const heard: unknown[] = [];
    relay.onChange((s) => heard.push(s));
    expect(relay.set("ws://127.0.0.1:5001")).toMatchObject({ ok: true, url: "ws://127.0.0.1:5001/" });
    expect(storage.items.get(RELAY_STORAGE_KEY)).toBe("ws://127.0.0.1:5001/");
    expect(relay.current()?.url).toBe("ws://127.0.0.1:5001/");
    expect(relay.set("ftp://nope/")).toMatchObject({ ok: false });
    expect(relay.current()?.url).toBe("ws://127.0.0.1:5001/");
    relay.set("");
    expect(relay.current()).toBeNull();
    expect(storage.items.has(RELAY_STORAGE_KEY)).toBe(false);
    expect(heard).toHaveLength(2);
  });
});

describe("TEST ONLY trust anchors", () => {
  const pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";

  it("come only from the global a test defines, and are none on a real visit", () => {
    expect(testTrustAnchors({})).toEqual({ anchors: [] });
    expect(testTrustAnchors({ [TEST_TRUST_ANCHORS_GLOBAL]: [pem] })).toEqual({ anchors: [pem] });
  });

  it("are ignored whole when malformed, with the reason", () => {
    const read = testTrustAnchors({ [TEST_TRUST_ANCHORS_GLOBAL]: [pem, "<script>"] });
    expect(read.anchors).toEqual([]);
    expect(read.error).toContain("not one PEM certificate");
  });
});

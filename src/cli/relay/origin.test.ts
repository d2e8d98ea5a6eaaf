import { describe, expect, it } from "vitest";
import { clientAddress } from "./admission";
import { DEFAULT_RELAY_LIMITS, descriptorLimit, fitToDescriptors } from "./limits";
import { DEFAULT_ALLOWED_ORIGINS, type OriginRule, originAllowed, parseOriginRule } from "./origin";

const rules = (texts: readonly string[]): OriginRule[] =>
  texts.map((t) => {
    const rule = parseOriginRule(t);
    if ("error" in rule) throw new Error(rule.error);
    return rule;
  });

describe("the relay's origin allowlist", () => {
  const defaults = rules(DEFAULT_ALLOWED_ORIGINS);

  it.each(["http://127.0.0.1:5173", "http://127.0.0.1", "http://localhost:4411", "HTTP://LOCALHOST:1"])(
    "allows the playground on loopback, any port: %s",
    (origin) => expect(originAllowed(origin, defaults)).toBe(true),
  );

  it.each([
    ["another site", "https://evil.example"],
    ["null", "null"],
    ["a look-alike host", "http://127.0.0.1.evil.example"],
    ["a look-alike with a port", "http://localhost.evil.example:80"],
    ["another scheme", "https://127.0.0.1:5173"],
    ["a wildcard sent as the port", "http://127.0.0.1:*"],
    ["a path", "http://127.0.0.1:5173/x"],
    ["user info", "http://a@127.0.0.1:5173"],
  ])("refuses %s", (_label, origin) => expect(originAllowed(origin, defaults)).toBe(false));

  it("refuses a request with no Origin", () => expect(originAllowed(undefined, defaults)).toBe(false));

  it("matches an --allow-origin exactly, the scheme's default port spelled or not", () => {
    const published = rules(["https://tab.example.org:443"]);
    expect(originAllowed("https://tab.example.org", published)).toBe(true);
    expect(originAllowed("https://tab.example.org:8443", published)).toBe(false);
    expect(originAllowed("https://sub.tab.example.org", published)).toBe(false);
    expect(originAllowed("http://tab.example.org", published)).toBe(false);
  });

  it.each(["tab.example.org", "https://*.example.org", "https://tab.example.org/", "ftp://x", "https://x:99999"])(
    "refuses %j as an --allow-origin value",
    (text) => expect(parseOriginRule(text)).toHaveProperty("error"),
  );
});

describe("the relay's client address", () => {
  const request = (peer: string, forwarded?: string) => ({
    socket: { remoteAddress: peer } as never,
    headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
  });

  it("is the peer's unless the peer is a trusted proxy", () => {
    expect(clientAddress(request("203.0.113.5", "198.51.100.1"), new Set())).toBe("203.0.113.5");
    expect(clientAddress(request("::ffff:127.0.0.1"), new Set())).toBe("127.0.0.1");
  });

  it("behind a trusted proxy is the last X-Forwarded-For entry that is not a trusted proxy", () => {
    const trusted = new Set(["127.0.0.1", "10.0.0.2"]);
    expect(clientAddress(request("127.0.0.1", "6.6.6.6, 198.51.100.1, 10.0.0.2"), trusted)).toBe("198.51.100.1");
    expect(clientAddress(request("127.0.0.1"), trusted)).toBe("127.0.0.1");
  });
});

describe("the relay's totals", () => {
  it("stay below the process's open-files limit", () => {
    const fitted = fitToDescriptors(DEFAULT_RELAY_LIMITS, 256);
    expect(fitted.streamsTotal + fitted.websocketsTotal).toBeLessThan(256);
    expect(fitToDescriptors(DEFAULT_RELAY_LIMITS, null)).toEqual(DEFAULT_RELAY_LIMITS);
  });

  it("read the soft limit from /proc/self/limits", () => {
    const text = "Limit  Soft Limit  Hard Limit  Units\nMax open files            1024                 524288               files\n";
    expect(descriptorLimit(() => text)).toBe(1024);
    expect(
      descriptorLimit(() => {
        throw new Error("no /proc");
      }),
    ).toBeNull();
  });
});

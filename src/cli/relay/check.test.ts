import { describe, expect, it } from "vitest";
import type { Lookup } from "../guarded-fetch";
import { createStreamCheck, destinationHost, parsePorts, parseResolveEntries, type RelayRules } from "./check";

// The relay's decision for one stream, in process: DNS is an injected lookup that records
// what it was asked, so "refused before resolving" and "resolved once" are outcomes to assert.

function rules(answers: Record<string, string[]>, overrides: Partial<RelayRules> = {}) {
  const asked: string[] = [];
  const lookup: Lookup = async (host) => {
    asked.push(host);
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  const check = createStreamCheck({
    ports: new Set([443, 80]),
    allowPrivateForTests: new Set(),
    resolve: new Map(),
    lookup,
    ...overrides,
  });
  return { check, asked };
}

describe("the relay's stream check", () => {
  it("allows a name whose addresses are all public, once resolved, with the address to connect to", async () => {
    const { check, asked } = rules({ "example.org": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] });
    const decision = await check("Example.ORG.", 443);
    expect(decision).toMatchObject({ verdict: { allowed: true }, address: "93.184.215.14" });
    expect(asked).toEqual(["example.org"]);
  });

  it("refuses a name when any one of its addresses is not public", async () => {
    const { check } = rules({ "mixed.example": ["93.184.215.14", "10.0.0.1"] });
    const decision = await check("mixed.example", 443);
    expect(decision.address).toBeUndefined();
    expect(decision.verdict).toMatchObject({ allowed: false, code: "private-address" });
  });

  it("refuses a port other than 443 and 80 before resolving anything", async () => {
    const { check, asked } = rules({ "example.org": ["93.184.215.14"] });
    const decision = await check("example.org", 22);
    expect(decision.verdict).toMatchObject({ allowed: false, code: "port-not-allowed" });
    expect(asked).toEqual([]);
  });

  it.each([
    ["127.0.0.1"],
    ["2130706433"],
    ["0x7f.1"],
    ["[::1]"],
    ["::ffff:127.0.0.1"],
    ["169.254.169.254"],
    ["100.64.0.1"],
    ["192.0.2.1"],
    ["fd00::1"],
  ])("refuses the non-public literal %s in any spelling", async (literal) => {
    const { check } = rules({});
    const decision = await check(literal, 443);
    expect(decision.verdict).toMatchObject({ allowed: false, code: "private-address" });
  });

  it("allows a private address only when --allow-private-for-tests lists it", async () => {
    const { check } = rules({}, { allowPrivateForTests: new Set(["127.0.0.1"]) });
    expect(await check("127.0.0.1", 443)).toMatchObject({ verdict: { allowed: true }, address: "127.0.0.1" });
    expect((await check("127.0.0.2", 443)).verdict.code).toBe("private-address");
  });

  it("answers --resolve names without DNS and checks their address like any other", async () => {
    const { check, asked } = rules({}, { resolve: new Map([["pinned.test", "10.0.0.1"]]) });
    expect((await check("PINNED.test", 443)).verdict.code).toBe("private-address");
    expect(asked).toEqual([]);
  });

  it("refuses a destination that is not a host, without resolving it", async () => {
    const { check, asked } = rules({});
    expect((await check("evil.example/path", 443)).verdict.code).toBe("bad-request");
    expect((await check("", 443)).verdict.code).toBe("bad-request");
    expect(asked).toEqual([]);
  });

  it("refuses a name past DNS's bounds (253 characters, 63 a label) without resolving it", async () => {
    const { check, asked } = rules({});
    const longest = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
    expect(longest).toHaveLength(253);
    expect((await check(`${longest}x`, 443)).verdict.code).toBe("bad-request");
    expect((await check(`${"a".repeat(64)}.example`, 443)).verdict.code).toBe("bad-request");
    expect((await check(`${"a".repeat(200 * 1024)}.example`, 443)).verdict.code).toBe("bad-request");
    expect(asked).toEqual([]);
    await check(longest, 443);
    expect(asked).toEqual([longest]);
  });

  it("reports a name that does not resolve as upstream-error", async () => {
    const { check } = rules({});
    expect((await check("nowhere.example", 443)).verdict).toMatchObject({ allowed: false, code: "upstream-error" });
  });
});

describe("the relay's flags", () => {
  it("reads --resolve NAME=IP, normalising the name and unbracketing IPv6", () => {
    expect(parseResolveEntries(["A.test.=127.0.0.1", "b.test=[::1]"])).toEqual(
      new Map([
        ["a.test", "127.0.0.1"],
        ["b.test", "::1"],
      ]),
    );
  });

  it.each([["no-equals"], ["=127.0.0.1"], ["name=not-an-ip"], ["127.0.0.1=127.0.0.2"]])("refuses the --resolve entry %j", (entry) => {
    expect(parseResolveEntries([entry])).toHaveProperty("error");
  });

  it("reads --allow-ports as a list of ports 1-65535 and nothing else", () => {
    expect(parsePorts("8443, 9000")).toEqual([8443, 9000]);
    expect(parsePorts("0")).toBeNull();
    expect(parsePorts("65536")).toBeNull();
    expect(parsePorts("1-2")).toBeNull();
    expect(parsePorts("")).toBeNull();
  });

  it("keeps IP literals as addresses and names as lowercase names", () => {
    expect(destinationHost("[2001:db8::1]")).toBe("2001:db8::1");
    expect(destinationHost("0x7f.1")).toBe("127.0.0.1");
    expect(destinationHost("Example.COM.")).toBe("example.com");
  });
});

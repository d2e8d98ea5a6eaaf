import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "./default";
import { hostKey, privateNameReason, readHost, refuseHost } from "./host";

describe("readHost", () => {
  it.each([
    ["HOST.", "host"],
    ["Host", "host"],
    ["Example.COM.", "example.com"],
    ["api.github.com", "api.github.com"],
    ["bücher.example", "xn--bcher-kva.example"],
  ])("normalises case, punycode and one trailing dot: %s is %s", (raw, host) => {
    expect(hostKey(raw)).toBe(host);
  });

  it.each([
    ["127.0.0.1", "127.0.0.1", "loopback"],
    ["0x7f.1", "127.0.0.1", "loopback"],
    ["0177.0.0.1", "127.0.0.1", "loopback"],
    ["127.1", "127.0.0.1", "loopback"],
    ["2130706433", "127.0.0.1", "loopback"],
    ["0x7f000001", "127.0.0.1", "loopback"],
    ["127.0.0.1.", "127.0.0.1", "loopback"],
    ["10.1", "10.0.0.1", "private"],
    ["169.254.169.254", "169.254.169.254", "link-local"],
    ["100.64.0.1", "100.64.0.1", "cgnat"],
    ["8.8.8.8", "8.8.8.8", "public"],
    ["[::1]", "[::1]", "loopback"],
    ["::1", "[::1]", "loopback"],
    ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "loopback"],
    ["[fe80::1]", "[fe80::1]", "link-local"],
    ["[fd00::1]", "[fd00::1]", "unique-local"],
    ["[2606:4700::1111]", "[2606:4700::1111]", "public"],
  ])("reads every IP spelling as an ip-literal: %s is %s (%s)", (raw, host, category) => {
    expect(readHost(raw)).toMatchObject({ kind: "ip-literal", host, category });
  });

  it.each([
    ["localhost"],
    ["localhost."],
    ["LOCALHOST"],
    ["a.localhost"],
    ["printer.local"],
    ["api.default.svc.cluster.local"],
    ["db.internal"],
    ["nas.home.arpa"],
    ["localhost.localdomain"],
    ["router.home"],
    ["nas.lan"],
    ["api.default.svc"],
    ["wiki.intranet"],
    ["mail.corp"],
    ["router"],
    ["1.0.0.127.in-addr.arpa"],
    ["1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa"],
    ["127-0-0-1.nip.io"],
    ["10.0.0.1.nip.io"],
    ["app.192.168.1.5.sslip.io"],
    ["www-192-168-0-1.sslip.io"],
    ["customer-app-172-16-0-9.example.com"],
    ["7f000001.nip.io"],
    ["otherapp-a000803.nip.io"],
    ["169-254-169-254.attacker.example"],
    ["100-64-0-1.example.net"],
    ["1-10-0-0-1.example.org"],
    ["--1.sslip.io"],
    ["fe80--1.sslip.io"],
    ["fd00--1.sslip.io"],
    ["--ffff-7f00-1.sslip.io"],
    ["app.localtest.me"],
    ["lvh.me"],
  ])("reads %s as a name private by convention", (raw) => {
    const host = readHost(raw);
    expect(host.kind).toBe("private-name");
    if (host.kind === "private-name") expect(host.why).toContain(host.host);
  });

  it.each([
    ["api.github.com"],
    ["example.com"],
    ["1-2-3-4.nip.io"],
    ["release-8-8-8-8.example.com"],
    ["deadbeef.example.com"],
    ["acceded.example.com"],
    ["xn--bcher-kva.example"],
    ["local.example.com"],
    ["localhost.evil.example"],
    ["v1-2-3.example.com"],
    ["upstream.test"],
    ["dead--beef.example.com"],
    ["ff02--1.example.com"],
  ])("reads %s as a name that may be public", (raw) => {
    expect(readHost(raw)).toMatchObject({ kind: "name" });
  });

  it.each([[""], ["a..b"], ["a b"], ["[::1"], ["user@host"], ["host:443"]])("refuses %j as no host at all", (raw) => {
    expect(readHost(raw).kind).toBe("invalid");
  });

  it("says which convention makes a name private", () => {
    expect(privateNameReason("a.localhost")).toMatch(/loopback name \(RFC 6761/);
    expect(privateNameReason("router")).toMatch(/single-label/);
    expect(privateNameReason("127-0-0-1.nip.io")).toMatch(/spells the loopback address 127\.0\.0\.1/);
    expect(privateNameReason("example.com")).toBeNull();
  });

  it("refuses an IP literal as ip-literal and a private name as private-address, by the caller it names", () => {
    const ip = readHost("0x7f.1");
    const name = readHost("a.localhost.");
    if (ip.kind !== "ip-literal" || name.kind !== "private-name") throw new Error("readHost changed");
    expect(refuseHost("0x7f.1", ip, "proxy")).toMatchObject({ allowed: false, code: "ip-literal", by: "proxy" });
    expect(refuseHost("a.localhost.", name, "resolver")).toMatchObject({ allowed: false, code: "private-address", by: "resolver" });
  });

  it("finds no private name in the default policy", () => {
    for (const rule of DEFAULT_POLICY.hosts) expect(readHost(rule.host.replace(/^\*\./, "")).kind).toBe("name");
  });
});

import { describe, expect, it } from "vitest";
import { type AddressCategory, addressCategory, classifyAddress, isPublicAddress } from "./index";

// The classifier checked against the IANA IPv4 and IPv6 Special-Purpose
// Address Registries, entry by entry. Every entry whose "Globally Reachable" is False or N/A
// must be refused (anything but `public`); the few True entries stay public, also when they sit
// inside a refused block. Prefixes that carry an IPv4 address are classified by that address.
describe("an address that is not globally reachable is never public (the IANA special-purpose registries)", () => {
  it.each<[string, string, AddressCategory]>([
    // IPv4, in registry order
    ['0.0.0.0/8 "this network" is refused', "0.1.2.3", "unspecified"],
    ["0.0.0.0 itself is refused", "0.0.0.0", "unspecified"],
    ["10.0.0.0/8 private-use is refused", "10.1.2.3", "private"],
    ["100.64.0.0/10 shared address space (CGNAT) is refused", "100.127.255.254", "cgnat"],
    ["just past 100.64.0.0/10 is public", "100.128.0.1", "public"],
    ["127.0.0.0/8 loopback is refused", "127.5.6.7", "loopback"],
    ["169.254.0.0/16 link local (cloud metadata) is refused", "169.254.169.254", "link-local"],
    ["172.16.0.0/12 private-use is refused", "172.31.255.1", "private"],
    ["just past 172.16.0.0/12 is public", "172.32.0.1", "public"],
    ["192.0.0.0/24 IETF protocol assignments is refused", "192.0.0.200", "reserved"],
    ["192.0.0.0/29 IPv4 service continuity prefix is refused", "192.0.0.7", "reserved"],
    ["192.0.0.8/32 IPv4 dummy address is refused", "192.0.0.8", "reserved"],
    ["192.0.0.9/32 PCP anycast is globally reachable", "192.0.0.9", "public"],
    ["192.0.0.10/32 TURN anycast is globally reachable", "192.0.0.10", "public"],
    ["192.0.0.170/32 NAT64/DNS64 discovery is refused", "192.0.0.170", "reserved"],
    ["192.0.0.171/32 NAT64/DNS64 discovery is refused", "192.0.0.171", "reserved"],
    ["192.0.2.0/24 TEST-NET-1 is refused", "192.0.2.1", "documentation"],
    ["192.31.196.0/24 AS112-v4 is globally reachable", "192.31.196.1", "public"],
    ["192.52.193.0/24 AMT is globally reachable", "192.52.193.1", "public"],
    ["192.88.99.0/24 deprecated 6to4 relay anycast is refused", "192.88.99.1", "reserved"],
    ["192.168.0.0/16 private-use is refused", "192.168.1.1", "private"],
    ["192.175.48.0/24 AS112 direct delegation is globally reachable", "192.175.48.1", "public"],
    ["198.18.0.0/15 benchmarking is refused", "198.19.255.1", "benchmarking"],
    ["198.51.100.0/24 TEST-NET-2 is refused", "198.51.100.1", "documentation"],
    ["203.0.113.0/24 TEST-NET-3 is refused", "203.0.113.1", "documentation"],
    ["224.0.0.0/4 multicast is refused", "239.255.255.250", "multicast"],
    ["240.0.0.0/4 reserved is refused", "240.0.0.1", "reserved"],
    ["255.255.255.255/32 limited broadcast is refused", "255.255.255.255", "broadcast"],
    ["an ordinary IPv4 address is public", "140.82.112.6", "public"],
    // IPv6, in registry order
    ["::1/128 loopback is refused", "::1", "loopback"],
    ["::/128 unspecified is refused", "::", "unspecified"],
    ["::ffff:0:0/96 IPv4-mapped loopback is refused as loopback", "::ffff:127.0.0.1", "loopback"],
    ["::ffff:0:0/96 IPv4-mapped in hex is classified by the embedded IPv4", "::ffff:a00:1", "private"],
    ["::ffff:0:0/96 IPv4-mapped public IPv4 is the public address it reaches", "::ffff:8.8.8.8", "public"],
    ["::ffff:0:0:0/96 IPv4-translated is refused, even around a public IPv4", "::ffff:0:8.8.8.8", "translated"],
    ["::ffff:0:0:0/96 IPv4-translated loopback is refused", "::ffff:0:7f00:1", "translated"],
    ["64:ff9b::/96 NAT64 of loopback is refused as loopback", "64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::/96 NAT64 of the metadata address is refused", "64:ff9b::169.254.169.254", "link-local"],
    ["64:ff9b::/96 NAT64 of a public IPv4 is globally reachable", "64:ff9b::8.8.8.8", "public"],
    ["64:ff9b:1::/48 local-use translation is refused", "64:ff9b:1::8.8.8.8", "translated"],
    ["100::/64 discard-only is refused", "100::1", "discard"],
    ["100:0:0:1::/64 dummy prefix is refused", "100:0:0:1::1", "reserved"],
    ["2001::/23 IETF protocol assignments is refused", "2001:100::1", "reserved"],
    ["2001::/32 TEREDO is refused", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
    ["2001:1::1/128 PCP anycast is globally reachable", "2001:1::1", "public"],
    ["2001:1::2/128 TURN anycast is globally reachable", "2001:1::2", "public"],
    ["2001:1::3/128 DNS-SD SRP anycast is globally reachable", "2001:1::3", "public"],
    ["another address in 2001:1::/48 is refused", "2001:1::4", "reserved"],
    ["2001:2::/48 benchmarking is refused", "2001:2::1", "benchmarking"],
    ["2001:3::/32 AMT is globally reachable", "2001:3::1", "public"],
    ["2001:4:112::/48 AS112-v6 is globally reachable", "2001:4:112::1", "public"],
    ["2001:10::/28 deprecated ORCHID is refused", "2001:10::1", "reserved"],
    ["2001:20::/28 ORCHIDv2 is globally reachable", "2001:20::1", "public"],
    ["2001:30::/28 drone remote ID tags are globally reachable", "2001:30::1", "public"],
    ["2001:db8::/32 documentation is refused", "2001:db8::1", "documentation"],
    ["2002::/16 6to4 of loopback is refused as loopback", "2002:7f00:1::1", "loopback"],
    ["2002::/16 6to4 of a private IPv4 is refused", "2002:c0a8:101::1", "private"],
    ["2002::/16 6to4 of a public IPv4 is the public address it reaches", "2002:808:808::1", "public"],
    ["2620:4f:8000::/48 AS112 direct delegation is globally reachable", "2620:4f:8000::1", "public"],
    ["3fff::/20 documentation is refused", "3fff:fff::1", "documentation"],
    ["5f00::/16 SRv6 SIDs are refused", "5f00::1", "reserved"],
    ["fc00::/7 unique-local is refused", "fd12:3456::1", "unique-local"],
    ["fe80::/10 link-local is refused", "fe80::1", "link-local"],
    ["a link-local address with a zone is refused", "fe80::1%eth0", "link-local"],
    ["fec0::/10 deprecated site-local is refused", "fec0::1", "reserved"],
    ["ff00::/8 multicast is refused", "ff02::1", "multicast"],
    ["an IPv4-compatible address (deprecated ::a.b.c.d) is refused", "::8.8.8.8", "reserved"],
    ["an address outside global unicast 2000::/3 is refused", "4000::1", "reserved"],
    ["an ordinary global unicast address is public", "2606:4700::1111", "public"],
    ["a bracketed address is read without its brackets", "[2606:4700::1111]", "public"],
    ["text that is not an address is invalid", "not an address", "invalid"],
  ])("%s (%s)", (_name, address, category) => {
    expect(addressCategory(address)).toBe(category);
    expect(isPublicAddress(address)).toBe(category === "public");
  });

  it("names the registry entry that decided, through an embedded IPv4", () => {
    expect(classifyAddress("::ffff:169.254.169.254")).toEqual({
      category: "link-local",
      entry: "::ffff:0:0/96 IPv4-mapped address → 169.254.0.0/16 link local",
    });
  });
});

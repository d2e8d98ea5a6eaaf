import { describe, expect, it } from "vitest";
import { judgeStep } from "../lessons";
import { windowOf } from "../lessons/testing/windows";
import { evaluate, Policy } from "../policy";
import { checkRemoteUrl } from "../resolver";
import { matchKey } from "../resolver/allowlist";
import { normalizeHost } from "../tls";
import { createGuardedFetch, FetchRefused, type Lookup } from "./guarded-fetch";
import { createStreamCheck } from "./relay/check";

// One host, every component that reads one (issue 46, "One host classification"): the proxy's
// decision (absolute-form and CONNECT), the resolver's URL check and allowlist key, the lesson
// judge's DNS match, the CLI's guarded fetch, the relay's stream check, and the TLS host the SNI
// is compared in. Each row says what the host is; each caller must read it so.

type Reading = { kind: "name"; host: string } | { kind: "private-address"; host: string } | { kind: "ip-literal"; address: string };

const ROWS: readonly [raw: string, reading: Reading][] = [
  ["HOST.", { kind: "private-address", host: "host" }],
  ["Host", { kind: "private-address", host: "host" }],
  ["0x7f.1", { kind: "ip-literal", address: "127.0.0.1" }],
  ["2130706433", { kind: "ip-literal", address: "127.0.0.1" }],
  ["0177.0.0.1", { kind: "ip-literal", address: "127.0.0.1" }],
  ["[::1]", { kind: "ip-literal", address: "::1" }],
  ["[::ffff:10.0.0.1]", { kind: "ip-literal", address: "::ffff:a00:1" }],
  ["localhost.", { kind: "private-address", host: "localhost" }],
  ["LocalHost", { kind: "private-address", host: "localhost" }],
  ["a.localhost", { kind: "private-address", host: "a.localhost" }],
  ["127-0-0-1.nip.io", { kind: "private-address", host: "127-0-0-1.nip.io" }],
  ["10.0.0.1.nip.io", { kind: "private-address", host: "10.0.0.1.nip.io" }],
  ["7f000001.nip.io", { kind: "private-address", host: "7f000001.nip.io" }],
  ["app.192.168.1.5.sslip.io", { kind: "private-address", host: "app.192.168.1.5.sslip.io" }],
  ["printer.local", { kind: "private-address", host: "printer.local" }],
  ["db.internal.", { kind: "private-address", host: "db.internal" }],
  ["localhost.localdomain", { kind: "private-address", host: "localhost.localdomain" }],
  ["api.default.svc", { kind: "private-address", host: "api.default.svc" }],
  ["1.0.0.127.in-addr.arpa", { kind: "private-address", host: "1.0.0.127.in-addr.arpa" }],
  ["Example.COM.", { kind: "name", host: "example.com" }],
  ["api.GitHub.com", { kind: "name", host: "api.github.com" }],
  ["1-2-3-4.nip.io", { kind: "name", host: "1-2-3-4.nip.io" }],
];

// Report mode, and every private name listed by name or wildcard: no policy lifts the guarantee.
const POLICY = Policy.parse({
  version: 1,
  mode: "report",
  http: "allow",
  hosts: [
    ...["localhost", "host", "a.localhost", "printer.local", "db.internal", "localhost.localdomain", "1.0.0.127.in-addr.arpa"],
    ...["*.nip.io", "*.sslip.io", "*.default.svc", "example.com", "*.github.com"],
  ].map((host) => ({ host })),
});

/** A DNS that answers nothing, and remembers every name it was asked. */
function recordingLookup(): { lookup: Lookup; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    lookup: async (host) => {
      asked.push(host);
      throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    },
  };
}

describe("a host's name means the same to the proxy, the resolver and the CLI", () => {
  describe.each(ROWS)("%s", (raw, reading) => {
    it("the proxy's decision (absolute-form and CONNECT)", () => {
      for (const request of [
        { method: "GET", url: `https://${raw}/x` },
        { method: "CONNECT" as const, authority: `${raw}:443` },
      ]) {
        const { verdict, target } = evaluate(POLICY, request);
        if (reading.kind === "name") {
          expect(verdict).toMatchObject({ allowed: true });
          expect(target?.host).toBe(reading.host);
        } else {
          expect(verdict).toMatchObject({ allowed: false, code: reading.kind, by: "proxy" });
          expect(verdict.wouldRefuse).toBeUndefined();
        }
      }
    });

    it("the resolver's URL check and allowlist key", () => {
      const verdict = checkRemoteUrl(`https://${raw}/x`);
      const key = matchKey(`https://${raw}/x/`);
      if (reading.kind === "name") {
        expect(verdict).toBeNull();
        expect(key).toMatchObject({ ok: true, key: { host: reading.host } });
      } else expect(verdict).toMatchObject({ allowed: false, code: reading.kind, by: "resolver" });
      if (reading.kind === "ip-literal") expect(key.ok).toBe(false);
    });

    it("the lesson judge's DNS match", () => {
      const queried = reading.kind === "ip-literal" ? reading.address : reading.host;
      const window = windowOf(`host ${raw}`, 0, [{ kind: "wire.dns", name: queried, type: "A", answer: "NOERROR", rcode: 0 }]);
      const judged = judgeStep({ title: "S", run: "true", expect: [{ dns: raw }] }, window);
      expect(judged.passed).toBe(true);
    });

    it("the CLI's guarded fetch (before any DNS for a refusal)", async () => {
      const dns = recordingLookup();
      const outcome = await createGuardedFetch({ lookup: dns.lookup })
        .fetch(`https://${raw}/x`)
        .catch((error: unknown) => error);
      if (reading.kind === "name") {
        expect(dns.asked).toEqual([reading.host]);
      } else {
        expect(outcome).toBeInstanceOf(FetchRefused);
        expect((outcome as FetchRefused).verdict).toMatchObject({ code: reading.kind });
        expect(dns.asked).toEqual([]);
      }
    });

    it("the relay's stream check (an IP literal is checked as its address, as any resolved one)", async () => {
      const dns = recordingLookup();
      const check = createStreamCheck({ ports: new Set([443]), allowPrivateForTests: new Set(), resolve: new Map(), lookup: dns.lookup });
      const { verdict } = await check(raw, 443);
      if (reading.kind === "name") {
        expect(dns.asked).toEqual([reading.host]);
        expect(verdict).toMatchObject({ allowed: false, code: "upstream-error" });
      } else {
        expect(verdict).toMatchObject({ allowed: false, code: "private-address" });
        if (reading.kind === "ip-literal") expect(verdict.reason).toContain(`resolved to ${reading.address} `);
        expect(dns.asked).toEqual([]);
      }
    });
  });

  // A ClientHello's server_name carries names only, so the IP rows have no SNI to compare.
  it.each(ROWS.flatMap(([raw, reading]) => (reading.kind === "ip-literal" ? [] : [[raw, reading.host] as const])))(
    "%s is %s to the TLS server that compares the SNI with the CONNECT host",
    (raw, host) => {
      expect(normalizeHost(raw)).toBe(host);
    },
  );
});

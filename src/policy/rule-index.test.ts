import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyEndpointMatches } from "./decide";
import { EndpointRule, endpointMatches, findHostRule, Policy } from "./index";

// The rule lookups are indexed (a drafted policy may hold thousands of rules and a replay asks
// once per line); they must answer exactly what a scan of every rule answers.

const segment = fc.constantFrom("a", "b", "ab", "repos", "x");
const prefix = fc
  .tuple(fc.array(segment, { minLength: 0, maxLength: 3 }), fc.boolean())
  .map(([parts, slash]) => (parts.length === 0 ? "/" : `/${parts.join("/")}${slash ? "/" : ""}`));
const path = fc
  .array(fc.constantFrom("a", "b", "ab", "repos", "x", ""), { minLength: 0, maxLength: 5 })
  .map((parts) => `/${parts.join("/")}`);
const method = fc.constantFrom("GET", "POST", "HEAD");

describe("an indexed rule lookup answers what a scan of every rule answers", () => {
  it("endpoints: a method on a path matches by lookup exactly when some endpoint rule matches it", () => {
    const endpoints = fc.array(
      fc.record({
        methods: fc.array(fc.constantFrom("GET", "POST", "*"), { minLength: 1, maxLength: 2 }),
        paths: fc.array(prefix, { minLength: 1, maxLength: 4 }),
      }),
      { minLength: 1, maxLength: 5 },
    );
    fc.assert(
      fc.property(endpoints, method, path, (raw, m, p) => {
        const rules = raw.map((e) => EndpointRule.parse(e));
        expect(anyEndpointMatches(rules, m, p)).toBe(rules.some((e) => endpointMatches(e, m, p)));
      }),
      { numRuns: 2000 },
    );
  });

  it("hosts: an exact rule first, then the longest wildcard suffix, never the apex", () => {
    const label = fc.constantFrom("a", "b", "example", "com");
    const name = fc.array(label, { minLength: 2, maxLength: 4 }).map((l) => l.join("."));
    const pattern = fc.tuple(fc.boolean(), name).map(([wild, n]) => (wild ? `*.${n}` : n));
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 6 }), name, (patterns, host) => {
        const policy = Policy.parse({ version: 1, hosts: patterns.map((p) => ({ host: p })) });
        const exact = policy.hosts.find((r) => r.host === host);
        const wildcards = policy.hosts.filter((r) => r.host.startsWith("*.") && host.endsWith(r.host.slice(1)));
        const longest = wildcards.reduce<(typeof wildcards)[number] | undefined>(
          (best, r) => (!best || r.host.length > best.host.length ? r : best),
          undefined,
        );
        expect(findHostRule(policy, host)).toBe(exact ?? longest);
      }),
      { numRuns: 2000 },
    );
  });
});

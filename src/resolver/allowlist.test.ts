import { describe, expect, it } from "vitest";
import { type AllowlistEntry, checkAllowlisted, checkSubset, parseAllowlistEntry } from "./index";

function entry(raw: string): AllowlistEntry {
  const parsed = parseAllowlistEntry(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.entry;
}
const ORG = [entry("https://github.com/fullsend-ai/library/"), entry("https://raw.githubusercontent.com/fullsend-ai/library/")];
const passes = (url: string, org = ORG, harness: AllowlistEntry[] = []) => checkAllowlisted(url, org, harness);

describe("allowlists: a URL passes when an org or harness entry covers it", () => {
  it.each([
    ["a file directly under the prefix", "https://github.com/fullsend-ai/library/tree/abc/skills/rust"],
    ["an upper-case scheme and host (normalized)", "HTTPS://GitHub.com/fullsend-ai/library/x"],
    ["a trailing-dot host (the same DNS name, read as the proxy reads it)", "https://github.com./fullsend-ai/library/x"],
    ["an escaped unreserved character (%6C is l)", "https://github.com/fullsend-ai/%6Cibrary/x"],
    ["a dot segment that stays inside", "https://github.com/fullsend-ai/library/a/../b"],
    ["an explicit default port matched by an entry that names it", "https://host.example:443/x/y"],
  ])("passes: %s", (name, url) => {
    const org = name.includes("port") ? [entry("https://host.example:443/x/")] : ORG;
    expect(passes(url, org)).toMatchObject({ allowed: true });
  });

  it.each([
    ["a sibling repository sharing the prefix's spelling", "https://github.com/fullsend-ai/library-evil/x"],
    ["the prefix without its trailing slash", "https://github.com/fullsend-ai/library"],
    ["a host that extends the allowed host (host.evil)", "https://github.com.evil/fullsend-ai/library/x"],
    ["a dot-dot segment climbing out", "https://github.com/fullsend-ai/library/../other/x"],
    ["an escaped dot-dot (%2e%2e) climbing out", "https://github.com/fullsend-ai/library/%2e%2e/other/x"],
    ["an escaped slash that climbs out once decoded", "https://github.com/fullsend-ai/library/..%2f..%2fother/x"],
    ["an escaped slash that only looks inside once decoded", "https://github.com/fullsend-ai%2flibrary/x"],
    ["a double-encoded escape (%25)", "https://github.com/fullsend-ai/library/%252e%252e/x"],
    ["%25 anywhere", "https://github.com/fullsend-ai/library/a%25b"],
    ["a backslash", "https://github.com/fullsend-ai/library/..\\..\\other/x"],
    ["a backslash in the authority", "https://github.com\\@evil.example/fullsend-ai/library/x"],
    ["userinfo that names the allowed host", "https://github.com@evil.example/fullsend-ai/library/x"],
    ["an explicit :443 against an entry without a port", "https://github.com:443/fullsend-ai/library/x"],
    ["another port", "https://github.com:8443/fullsend-ai/library/x"],
    ["plain http", "http://github.com/fullsend-ai/library/x"],
    ["a tab inside the path (parsers strip it)", "https://github.com/fullsend-ai/lib\trary/x"],
    ["an IP literal", "https://140.82.112.3/fullsend-ai/library/x"],
    ["a scheme-relative lookalike", "https:github.com/fullsend-ai/library/x"],
    ["a dot-dot segment with a path parameter (..;/)", "https://github.com/fullsend-ai/library/..;/other/x"],
    ["a dot-dot segment with a named parameter (..;x)", "https://github.com/fullsend-ai/library/..;x/other/x"],
    ["an escaped semicolon after dot-dot (..%3B)", "https://github.com/fullsend-ai/library/..%3B/other/x"],
    ["a dot-dot segment followed by an escaped space (..%20)", "https://github.com/fullsend-ai/library/..%20/other/x"],
    ["three dots, which some servers trim to two", "https://github.com/fullsend-ai/library/.../other/x"],
  ])("never matches: %s", (_, url) => {
    expect(passes(url)).toMatchObject({ allowed: false, code: "not-allowlisted" });
  });

  it("a harness-level entry admits a URL the org entries alone do not (org OR harness)", () => {
    const org = [entry("https://github.com/")];
    const harness = [entry("https://github.com/fullsend-ai/library/")];
    expect(passes("https://github.com/fullsend-ai/library/x", [], harness)).toMatchObject({ allowed: true });
    expect(checkSubset(harness, org)).toBeNull();
  });

  it.each([
    ["an entry without a trailing slash", "https://github.com/fullsend-ai/library"],
    ["an http entry", "http://github.com/fullsend-ai/"],
    ["an entry with a query", "https://github.com/?x=/"],
    ["an entry with %25", "https://github.com/a%25/"],
  ])("refuses to parse %s", (_, raw) => {
    expect(parseAllowlistEntry(raw).ok).toBe(false);
  });
});

describe("harness entries must be a subset of the org's", () => {
  it.each([
    ["a different host", "https://attacker.example/"],
    ["a parent of an org entry (wider than allowed)", "https://github.com/"],
    ["a sibling path", "https://github.com/fullsend-ai/other/"],
    ["the org host with an explicit port", "https://github.com:443/fullsend-ai/library/"],
  ])("%s is allowlist-not-subset", (_, raw) => {
    expect(checkSubset([entry(raw)], ORG)).toMatchObject({ allowed: false, code: "allowlist-not-subset" });
  });

  it("an entry inside an org entry is a subset", () => {
    expect(checkSubset([entry("https://github.com/fullsend-ai/library/skills/")], ORG)).toBeNull();
  });
});

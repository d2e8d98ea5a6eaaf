import { describe, expect, it } from "vitest";
import { canonicalRequestPath, DEFAULT_POLICY, decide, evaluate, type Policy, Policy as PolicySchema } from "./index";

// The host, endpoint and port allowlists (docs/decisions/0005-the-page-is-the-only-network-client.md); no IP literals.
const policy: Policy = PolicySchema.parse({
  version: 1,
  hosts: [
    { host: "api.github.com", endpoints: [{ methods: ["GET", "HEAD"], paths: ["/repos/", "/zen"] }] },
    { host: "raw.githubusercontent.com" },
    { host: "*.example.com" },
    { host: "ports.example.org", ports: [443, 8443] },
  ],
});

const get = (url: string, method = "GET") => ({ method, url });

describe("decide: the proxy's rows of the verdict table", () => {
  it.each([
    ["an allowlisted host and endpoint is served", get("https://api.github.com/repos/torvalds/linux"), "served"],
    ["a host not on the allowlist is refused (pastebin row)", get("https://pastebin.com/raw/abc"), "host-not-allowed"],
    ["an IP literal is refused (93.184.216.34 row)", get("https://93.184.216.34/"), "ip-literal"],
    ["a host with no endpoint rules allows any path", get("https://raw.githubusercontent.com/a/b/main/x"), "served"],
    ["a method not listed for the host is refused", get("https://api.github.com/repos/x", "POST"), "endpoint-not-allowed"],
    ["a path outside every prefix is refused", get("https://api.github.com/user/emails"), "endpoint-not-allowed"],
    ["a prefix without a slash does not match a longer word", get("https://api.github.com/zenith"), "endpoint-not-allowed"],
    ["a prefix without a slash matches the exact path", get("https://api.github.com/zen"), "served"],
    ["the wildcard matches a subdomain", get("https://a.example.com/"), "served"],
    ["the wildcard matches a deeper subdomain", get("https://a.b.example.com/"), "served"],
    ["the wildcard never matches the apex", get("https://example.com/"), "host-not-allowed"],
    ["the wildcard never matches a lookalike suffix", get("https://notexample.com/"), "host-not-allowed"],
    ["port 443 only unless listed", get("https://api.github.com:8443/zen"), "port-not-allowed"],
    ["a port listed for the host is allowed", get("https://ports.example.org:8443/"), "served"],
    ["an explicit :443 is the default port", get("https://api.github.com:443/zen"), "served"],
    ["a scheme other than http(s) is not-https", get("ftp://api.github.com/zen"), "not-https"],
    ["a method that is not a token is a bad request", get("https://api.github.com/zen", "G T"), "bad-request"],
    ["a relative URL is a bad request", get("/zen"), "bad-request"],
  ])("%s", (_name, request, code) => {
    expect(decide(policy, request).code).toBe(code);
  });

  it("gives every verdict a reason and says the net decided", () => {
    const verdict = decide(policy, get("https://pastebin.com/raw/abc"));
    expect(verdict).toEqual({ allowed: false, code: "host-not-allowed", reason: "pastebin.com is not on the allowlist", by: "proxy" });
  });
});

describe("decide: SSRF, every spelling of an IP the WHATWG URL parser accepts is ip-literal", () => {
  it.each([
    ["dotted decimal", "127.0.0.1"],
    ["a single decimal number", "2130706433"],
    ["a single hex number", "0x7f000001"],
    ["hex parts", "0x7f.0.0.1"],
    ["octal parts", "0177.0.0.1"],
    ["the short form a.b", "127.1"],
    ["the short form a.b.c", "127.0.1"],
    ["a trailing dot after an IPv4", "127.0.0.1."],
    ["fullwidth digits", "１２７.０.０.１"],
    ["percent-encoded digits", "%31%32%37.0.0.1"],
    ["bracketed IPv6 loopback", "[::1]"],
    ["IPv4-mapped IPv6", "[::ffff:127.0.0.1]"],
    ["IPv4-mapped IPv6 in hex", "[::ffff:7f00:1]"],
    ["a public IPv4 (verdict table, row 4)", "93.184.216.34"],
    ["the cloud metadata address", "169.254.169.254"],
    ["a public IPv6", "[2606:4700::1111]"],
  ])("%s (%s)", (_name, host) => {
    expect(decide(policy, get(`https://${host}/`)).code).toBe("ip-literal");
    expect(decide(policy, { method: "CONNECT", authority: `${host}:443` }).code).toBe("ip-literal");
  });
});

describe("decide: host tricks never reach an allowlisted name they do not name", () => {
  it.each([
    ["userinfo naming the allowed host before @", "https://api.github.com@evil.example/zen", "bad-request"],
    ["userinfo with the allowed host after @", "https://evil@api.github.com/zen", "bad-request"],
    ["a backslash before @ (WHATWG reads it as a slash)", "https://evil.example\\@api.github.com/zen", "host-not-allowed"],
    ["a trailing dot is the same DNS name", "https://api.github.com./zen", "served"],
    ["mixed case is the same name", "https://API.GitHub.COM/zen", "served"],
    ["a Unicode lookalike is punycoded and not allowed", "https://аpi.github.com/zen", "host-not-allowed"],
    ["an accented name is punycoded and not allowed", "https://ápi.github.com/zen", "host-not-allowed"],
    ["punycode written directly is not the allowed name", "https://xn--pi-7ka.github.com/zen", "host-not-allowed"],
    ["a suffix attack is not the allowed name", "https://api.github.com.evil.example/zen", "host-not-allowed"],
    ["an empty host is a bad request", "https:///zen", "bad-request"],
    ["a space in the URL is a bad request", "https://api.github.com/ zen", "bad-request"],
  ])("%s", (_name, url, code) => {
    expect(decide(policy, get(url)).code).toBe(code);
  });

  it("fetches exactly the normalised name that was checked", () => {
    expect(evaluate(policy, get("https://API.GitHub.com./zen?x=1#frag")).target?.url).toBe("https://api.github.com/zen?x=1");
  });
});

describe("decide: paths are normalised and ambiguous paths never match a prefix", () => {
  it.each([
    ["a dot-dot segment", "/repos/../user", "dot-segment"],
    ["an encoded dot-dot segment", "/repos/%2e%2e/user", "dot-segment"],
    ["a mixed-encoded dot-dot segment", "/repos/.%2E/user", "dot-segment"],
    ["a single dot segment", "/repos/./x", "dot-segment"],
    ["double percent-encoding", "/repos/%252e%252e/user", "%25"],
    ["a backslash", "/repos\\..\\user", "backslash"],
    ["an encoded backslash", "/repos/%5c../user", "backslash"],
    ["a malformed escape", "/repos/%zz", "malformed"],
  ])("%s is refused with endpoint-not-allowed", (_name, path, why) => {
    const verdict = decide(policy, get(`https://api.github.com${path}`));
    expect(verdict.code).toBe("endpoint-not-allowed");
    expect(verdict.reason).toContain(why);
  });

  it("ambiguous paths are refused even on a host without endpoint rules", () => {
    expect(decide(policy, get("https://raw.githubusercontent.com/a/../b")).code).toBe("endpoint-not-allowed");
  });

  it("percent-encoded unreserved characters are decoded before matching", () => {
    expect(evaluate(policy, get("https://api.github.com/rep%6Fs/x")).target?.path).toBe("/repos/x");
    expect(decide(policy, get("https://api.github.com/rep%6Fs/x")).code).toBe("served");
  });

  it("an encoded slash stays encoded and does not open a prefix", () => {
    expect(decide(policy, get("https://api.github.com/repos%2Fx")).code).toBe("endpoint-not-allowed");
  });
});

// A server that decodes %2F, strips `;parameters` or trims trailing dots and
// spaces must never be handed a path that climbs out of the prefix the policy checked.
describe("decide: a path a server could read as leaving its prefix never matches", () => {
  it.each([
    ["encoded slashes around dot-dot (the default policy's /repos/ prefix)", "/repos/..%2F..%2Fuser/keys", "encoded slash"],
    ["a lowercase encoded slash", "/repos/x%2f..%2fuser", "encoded slash"],
    ["an encoded dot-dot-slash is refused, not rewritten into ..%2F", "/repos/%2e%2e%2fuser/keys", "encoded slash"],
    ["a dot-dot with a ;parameter (Tomcat, Jetty)", "/repos/..;/admin", "dot-segment"],
    ["a dot-dot with a named ;parameter", "/repos/..;jsessionid=1/admin", "dot-segment"],
    ["a dot-dot with an encoded semicolon", "/repos/..%3B/admin", "dot-segment"],
    ["a single dot with a ;parameter", "/repos/.;x/admin", "dot-segment"],
    ["a dot-dot with a trailing encoded space (Windows)", "/repos/..%20/admin", "dot-segment"],
    ["a dot-dot with a trailing dot (Windows)", "/repos/.../admin", "dot-segment"],
    ["an encoded NUL that truncates the path in C servers", "/repos/x%00/../admin", "control"],
    ["an overlong UTF-8 dot-dot", "/repos/%C0%AE%C0%AE/admin", "UTF-8"],
    ["an overlong UTF-8 slash", "/repos/x%C0%AF..%C0%AFadmin", "UTF-8"],
    ["a lone byte escape that is not UTF-8", "/repos/%FF", "UTF-8"],
  ])("%s is refused with endpoint-not-allowed", (_name, path, why) => {
    const verdict = decide(DEFAULT_POLICY, get(`https://api.github.com${path}`));
    expect(verdict.code).toBe("endpoint-not-allowed");
    expect(verdict.reason).toContain(why);
  });

  it("refuses such a path even on a host that allows every path", () => {
    expect(decide(DEFAULT_POLICY, get("https://raw.githubusercontent.com/a/..%2F..%2Fb")).code).toBe("endpoint-not-allowed");
    expect(decide(DEFAULT_POLICY, get("https://raw.githubusercontent.com/a/..;/b")).code).toBe("endpoint-not-allowed");
  });
});

describe("decide: the URL fetched is exactly the URL the policy checked", () => {
  it.each([
    ["a plain path", "/repos/torvalds/linux", "/repos/torvalds/linux", ""],
    ["a ;parameter outside a dot-segment is kept", "/repos/a;b=c/x", "/repos/a;b=c/x", ""],
    ["an encoded unreserved character is decoded", "/rep%6Fs/x", "/repos/x", ""],
    ["an encoded UTF-8 name keeps its escapes, uppercased", "/repos/caf%c3%a9", "/repos/caf%C3%A9", ""],
    ["characters a browser would encode are encoded", '/repos/a"b<c>d^e`f{g}', "/repos/a%22b%3Cc%3Ed%5Ee%60f%7Bg%7D", ""],
    ["a query is sent as a browser sends it", "/repos/x?q='é'<>", "/repos/x", "?q=%27%C3%A9%27%3C%3E"],
    ["an empty segment is kept", "/repos//x", "/repos//x", ""],
  ])("%s", (_name, input, path, query) => {
    const { verdict, target } = evaluate(DEFAULT_POLICY, get(`https://api.github.com${input}`));
    expect(verdict.code).toBe("served");
    expect(target).toMatchObject({ path, query, url: `https://api.github.com${path}${query}` });
    // What a browser's fetch() and the Node host's new URL() send is what was checked.
    const sent = new URL(target?.url ?? "");
    expect(sent.pathname + sent.search).toBe(path + query);
    // Checking the checked path again changes nothing: no rewrite can make it more dangerous.
    expect(canonicalRequestPath(path)).toEqual({ ok: true, path });
  });

  it("compares a rule's prefix in the same form as the path", () => {
    const quoted = PolicySchema.parse({ version: 1, hosts: [{ host: "a.example", endpoints: [{ methods: ["GET"], paths: ['/a"b/'] }] }] });
    expect(decide(quoted, get('https://a.example/a"b/x')).code).toBe("served");
    expect(decide(quoted, get("https://a.example/a%22b/x")).code).toBe("served");
  });
});

describe("decide: http:// targets follow the policy's http handling", () => {
  it("upgrades to https by default and says so in the reason", () => {
    const decision = evaluate(policy, get("http://api.github.com/zen"));
    expect(decision.verdict.code).toBe("served");
    expect(decision.verdict.reason).toContain("upgraded");
    expect(decision.target).toMatchObject({ url: "https://api.github.com/zen", port: 443, upgraded: true });
  });

  it("refuses with not-https when the policy says refuse", () => {
    expect(decide({ ...policy, http: "refuse" }, get("http://api.github.com/zen")).code).toBe("not-https");
  });

  it("allows plain http only when the policy says allow, on a listed port", () => {
    const plain = { ...policy, http: "allow" as const };
    expect(decide(plain, get("http://api.github.com/zen")).code).toBe("port-not-allowed");
    expect(evaluate({ ...plain, ports: [80] }, get("http://api.github.com/zen")).target?.url).toBe("http://api.github.com/zen");
  });
});

describe("decide: CONNECT needs a name, on the allowlist, on an allowed port", () => {
  it.each([
    ["an allowlisted name on 443 may open", "api.github.com:443", "served"],
    ["a name not on the allowlist is refused", "pastebin.com:443", "host-not-allowed"],
    ["port 22 is not allowed", "api.github.com:22", "port-not-allowed"],
    ["a missing port is a bad request", "api.github.com", "bad-request"],
    ["a missing name is a bad request", ":443", "bad-request"],
    ["userinfo is a bad request", "a@api.github.com:443", "bad-request"],
    ["port 0 is a bad request", "api.github.com:0", "bad-request"],
  ])("%s", (_name, authority, code) => {
    expect(decide(policy, { method: "CONNECT", authority }).code).toBe(code);
  });
});

describe("the default policy (what the page starts with)", () => {
  it.each([
    ["api.github.com repos", "https://api.github.com/repos/torvalds/linux", "served"],
    ["raw.githubusercontent.com files", "https://raw.githubusercontent.com/torvalds/linux/master/README", "served"],
    ["pastebin", "https://pastebin.com/raw/abc", "host-not-allowed"],
    ["an IP", "https://93.184.216.34/", "ip-literal"],
  ])("%s gives %s", (_name, url, code) => {
    expect(decide(DEFAULT_POLICY, get(url)).code).toBe(code);
  });
});

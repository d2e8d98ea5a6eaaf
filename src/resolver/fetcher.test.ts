import { describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import { fetchGuarded } from "./index";
import { createMemoryFetch } from "./testing/memory-fetch";

const limits = { maxBytes: 16 };

describe("SSRF rules for every fetch: https only, no redirects, no IP literals or internal addresses", () => {
  it.each([
    ["http:// is not-https", "http://x.example/a", "not-https"],
    ["ftp:// is not-https", "ftp://x.example/a", "not-https"],
    ["file:// is not-https", "file:///etc/passwd", "not-https"],
    ["a dotted IPv4 host is ip-literal", "https://10.0.0.1/a", "ip-literal"],
    ["a decimal IPv4 spelling is ip-literal", "https://2130706433/a", "ip-literal"],
    ["a hex IPv4 spelling is ip-literal", "https://0x7f.1/a", "ip-literal"],
    ["an IPv6 host is ip-literal", "https://[::1]/a", "ip-literal"],
  ])("%s, and nothing is fetched", async (_, url, code) => {
    const fetch = createMemoryFetch({});
    const out = await fetchGuarded(url, fetch, limits);
    expect(out).toMatchObject({ ok: false, verdict: { code } });
    expect(fetch.calls).toEqual([]);
  });

  it.each([
    ["a 302 redirect is refused, never followed", { status: 302, headers: { location: "https://evil.example/" } }, "bad-status"],
    ["a 301 to the same host is refused too", { status: 301, headers: { location: "https://x.example/b" } }, "bad-status"],
    ["a 404 is bad-status", { status: 404, body: "not found" }, "bad-status"],
    ["a 204 is bad-status (only 200 is accepted)", { status: 204 }, "bad-status"],
    [
      "a declared Content-Length over the cap is too-large",
      { status: 200, body: "x".repeat(8), headers: { "content-length": "99" } },
      "too-large",
    ],
    ["a body over the cap is too-large while streaming", { status: 200, body: "x".repeat(17) }, "too-large"],
  ])("%s", async (_, route, code) => {
    const out = await fetchGuarded("https://x.example/a", createMemoryFetch({ "https://x.example/a": route }), limits);
    expect(out).toMatchObject({ ok: false, verdict: { code } });
  });

  it("a network error is fetch-failed and marked transient (stale-cache fallback applies)", async () => {
    const out = await fetchGuarded("https://x.example/a", createMemoryFetch({}), limits);
    expect(out).toMatchObject({ ok: false, transient: true, verdict: { code: "fetch-failed" } });
  });

  it("a host guard's refusal is the outcome with its own code, not a transient failure", async () => {
    const refusal = Object.assign(new Error("x.example resolved to 127.0.0.1 (loopback)"), {
      name: "FetchRefused",
      verdict: { allowed: false, code: "private-address", reason: "x.example resolved to 127.0.0.1 (loopback)", by: "proxy" },
    });
    const out = await fetchGuarded("https://x.example/a", () => Promise.reject(refusal), limits);
    expect(out).toEqual({ ok: false, transient: false, verdict: refusal.verdict });
  });

  it("a rejection that only looks like a guard's refusal is a network failure", async () => {
    const fake = Object.assign(new Error("nope"), { name: "FetchRefused", verdict: { code: "not-a-code" } });
    const out = await fetchGuarded("https://x.example/a", () => Promise.reject(fake), limits);
    expect(out).toMatchObject({ ok: false, transient: true, verdict: { code: "fetch-failed" } });
  });

  it("a browser's opaque redirect (redirect: manual) is refused", async () => {
    const opaque = Object.assign(new Response(null, { status: 200 }), {});
    Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
    const out = await fetchGuarded("https://x.example/a", async () => opaque, limits);
    expect(out).toMatchObject({ ok: false, verdict: { code: "bad-status" } });
  });

  it("a 200 within the cap is served with its exact bytes", async () => {
    const out = await fetchGuarded("https://x.example/a", createMemoryFetch({ "https://x.example/a": "exactly sixteen!" }), limits);
    expect(out).toEqual({ ok: true, bytes: utf8("exactly sixteen!") });
  });
});

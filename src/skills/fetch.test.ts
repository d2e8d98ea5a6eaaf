import { describe, expect, it } from "vitest";
import { fetchCapped } from "./fetch";

// The CLI's guarded fetch refuses with a coded verdict; skills report it.
describe("fetchCapped: a host guard's refusal is reported with its own code", () => {
  it.each([
    ["private-address", "example.test resolved to 127.0.0.1 (loopback)"],
    ["port-not-allowed", "port 8443 is not allowed for example.test"],
    ["redirect-other-host", "https://example.test/a redirected to evil.test, another host"],
  ] as const)("%s", async (code, reason) => {
    const refusal = Object.assign(new Error(reason), { name: "FetchRefused", verdict: { allowed: false, code, reason, by: "proxy" } });
    const out = await fetchCapped(() => Promise.reject(refusal), "https://example.test/a", 16);
    expect(out).toEqual({ ok: false, verdict: refusal.verdict });
  });

  it("any other rejection is fetch-failed", async () => {
    const out = await fetchCapped(() => Promise.reject(new TypeError("network")), "https://example.test/a", 16);
    expect(out).toMatchObject({ ok: false, verdict: { code: "fetch-failed" } });
  });
});

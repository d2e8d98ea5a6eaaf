import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, Policy } from "../policy";
import { describePolicyChange, withoutToken } from "./proposal";

describe("a proposed policy shown against the reader's current one", () => {
  it("names a switch to report mode, plain http, ports, vault ids and every host rule it adds, changes or removes", () => {
    const current = Policy.parse({ version: 1, hosts: [{ host: "api.github.com" }, { host: "pypi.org" }] });
    const proposed = Policy.parse({
      version: 1,
      mode: "report",
      http: "allow",
      ports: [443, 8080],
      vaults: ["team-secrets"],
      hosts: [{ host: "api.github.com", endpoints: [{ methods: ["GET"], paths: ["/zen"] }] }, { host: "evil.example" }],
    });
    expect(describePolicyChange(current, proposed)).toEqual([
      { sign: "~", text: "mode: enforce → report" },
      { sign: "~", text: "plain http: upgrade → allow" },
      { sign: "~", text: "default ports: 443 → 443, 8080" },
      { sign: "~", text: "vault ids: none → team-secrets" },
      { sign: "~", text: "api.github.com GET /zen" },
      { sign: "-", text: "pypi.org any method, any path" },
      { sign: "+", text: "evil.example any method, any path" },
    ]);
  });

  it("the same policy proposes no change", () => {
    expect(describePolicyChange(DEFAULT_POLICY, DEFAULT_POLICY)).toEqual([]);
  });
});

describe("a URL shown on the card", () => {
  it("never shows a token", () => {
    expect(withoutToken("wss://relay.example/?token=s3cret&x=1")).toBe("wss://relay.example/?token=…&x=1");
    expect(withoutToken("wss://relay.example/")).toBe("wss://relay.example/");
  });
});

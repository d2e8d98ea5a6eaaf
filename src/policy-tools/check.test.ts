import { describe, expect, it } from "vitest";
import { Policy } from "../policy";
import { checkRequest, describeCheck, parseRequestLine } from "./index";

const policy = Policy.parse({
  version: 1,
  hosts: [
    {
      host: "api.github.com",
      endpoints: [
        { methods: ["HEAD"], paths: ["/x"] },
        { methods: ["GET"], paths: ["/repos/", "/zen"] },
      ],
    },
    { host: "*.example.com" },
  ],
});

function check(line: string, under = policy) {
  const parsed = parseRequestLine(line);
  if (!parsed.ok) throw new Error(parsed.reason);
  return checkRequest(under, parsed.request);
}

describe("check: would this be allowed? (no request leaves)", () => {
  it.each([
    ["GET https://api.github.com/zen", true, "served", "hosts[0] api.github.com, endpoints[1] GET /repos/ /zen"],
    ["get https://api.github.com/zen", true, "served", "hosts[0] api.github.com, endpoints[1] GET /repos/ /zen"],
    ["POST https://api.github.com/zen", false, "endpoint-not-allowed", "hosts[0] api.github.com"],
    ["GET https://a.example.com/anything", true, "served", "hosts[1] *.example.com (any method, any path)"],
    ["GET https://pastebin.com/", false, "host-not-allowed", null],
    ["GET https://127.0.0.1/", false, "ip-literal", null],
    ["CONNECT api.github.com:443", true, "served", "hosts[0] api.github.com"],
  ])("%s → allowed %s, %s, rule %s", (line, allowed, code, rule) => {
    const result = check(line);
    expect(result.verdict).toMatchObject({ allowed, code });
    expect(result.rule?.text ?? null).toBe(rule);
  });

  it("in report mode says what it would refuse", () => {
    const report = Policy.parse({ ...policy, mode: "report" });
    const result = check("GET https://pastebin.com/", report);
    expect(result.verdict).toMatchObject({ allowed: true, wouldRefuse: "host-not-allowed" });
    expect(describeCheck(result)).toEqual([
      expect.stringMatching(/^allowed served: report mode/),
      "would refuse host-not-allowed (report mode): pastebin.com is not on the allowlist",
      "rule: none matched",
    ]);
  });

  it.each([["https://api.github.com/zen"], ["GET"], [""], ["GET https://a b"]])("%j is not a request line", (line) => {
    expect(parseRequestLine(line)).toMatchObject({ ok: false, reason: expect.stringContaining("METHOD URL") });
  });
});

import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, Policy } from "../../../policy";
import { modelCallVerdict, policyAllowingModel } from "./policy";

// The model-driven agent: a model call is decided by the policy like any other request; the
// Model section offers the one rule that allows it.

const MESSAGES = "https://api.anthropic.com/v1/messages";

describe("the model host and the policy", () => {
  it("is not on the default policy: a model call is refused host-not-allowed", () => {
    expect(modelCallVerdict(DEFAULT_POLICY, MESSAGES)).toMatchObject({ allowed: false, code: "host-not-allowed" });
  });

  it("is allowed for POST on the model path only, once the operator adds it", () => {
    const policy = policyAllowingModel(DEFAULT_POLICY, MESSAGES);
    expect(modelCallVerdict(policy, MESSAGES)).toMatchObject({ allowed: true });
    expect(modelCallVerdict(policy, "https://api.anthropic.com/v1/files")).toMatchObject({ code: "endpoint-not-allowed" });
    expect(policy.hosts.slice(0, DEFAULT_POLICY.hosts.length)).toEqual(DEFAULT_POLICY.hosts);
  });

  it("adds the rule to a host already listed with other endpoints", () => {
    const listed = Policy.parse({ version: 1, hosts: [{ host: "llm.example", endpoints: [{ methods: ["GET"], paths: ["/models"] }] }] });
    const policy = policyAllowingModel(listed, "https://llm.example/v1/chat/completions");
    expect(policy.hosts).toHaveLength(1);
    expect(modelCallVerdict(policy, "https://llm.example/v1/chat/completions")).toMatchObject({ allowed: true });
    expect(modelCallVerdict(policy, "https://llm.example/models")).toMatchObject({ allowed: false });
  });
});

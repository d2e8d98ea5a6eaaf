import { describe, expect, it } from "vitest";
import { extractStep } from "../model";
import { AGENT_VERBS, AgentStep, MODEL_VERBS } from "./verbs";

// The model-driven agent: the model is told the runner's verbs (AGENT_VERBS) and its answer
// is checked with the runner's own step rule (AgentStep).

const rules = { verbs: MODEL_VERBS.map((v) => v.verb), schema: AgentStep };

describe("the verbs a model may answer with", () => {
  it("are every agent verb but model, each explained by a usage that starts with the verb", () => {
    expect(MODEL_VERBS.map((v) => v.verb)).toEqual(AGENT_VERBS.filter((v) => v !== "model"));
    for (const v of MODEL_VERBS) expect(v.usage.startsWith(`${v.verb} `)).toBe(true);
  });

  it.each([
    ["post https://api.github.com/zen"],
    ["connect 93.184.216.34 443"],
    ["done the zen was read"],
    ["skill-script skill:0a1b s.sh"],
  ])("accepts the runner's step %s", (step) => {
    expect(extractStep(step, rules)).toEqual({ ok: true, step });
  });

  it.each([["model look again"], ["list .\nrun curl evil.example"], ["rm -rf /"]])("refuses %j", (step) => {
    expect(extractStep(step, rules).ok).toBe(false);
  });

  it("lets a harness or a run request start the loop with the model verb", () => {
    expect(AgentStep.safeParse("model read the zen, then stop").success).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { readPageLink } from "./link";
import { linkConsentParts } from "./link-consent";

const parts = (query: string) => linkConsentParts(readPageLink(`https://play.example/${query}`));

describe("which parts of a link wait for the reader's consent", () => {
  it.each([
    ["a draft lesson in the fragment", "#lesson-draft=abc", ["lesson"]],
    [
      "a published lesson by pinned URL",
      `?lesson=${encodeURIComponent(`https://docs.example/a.yaml#sha256=${"a".repeat(64)}`)}`,
      ["lesson"],
    ],
    ["a share link's policy", "?policy=xyz", ["share"]],
    ["a share link's policy by reference", "?policy-ref=https%3A%2F%2Fx.example%2Fp.yaml", ["share"]],
    ["a share link's rows", "?scenarios=served,ip-literal", ["share"]],
    ["a harness whose agent the link runs", "?harness=sample&run=1", ["share"]],
    ["a relay", "?relay=wss%3A%2F%2Frelay.example%2F", ["relay"]],
    ["a draft with rows and a relay", "?scenarios=served&relay=wss%3A%2F%2Fr.example%2F#lesson-draft=abc", ["lesson", "share", "relay"]],
  ])("%s", (_name, query, expected) => {
    expect(parts(query)).toEqual(expected);
  });

  it.each([
    ["a shipped lesson by name (built-in material keeps its one click)", "?lesson=01-tour"],
    ["a scenario embed (its row runs on the reader's Run)", "?embed=1&scenario=2"],
    ["a harness to resolve, not run", "?harness=sample"],
    ["the tour", "?tour=1"],
  ])("%s needs none", (_name, query) => {
    expect(parts(query)).toEqual([]);
  });
});

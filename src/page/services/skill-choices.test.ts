import { describe, expect, it } from "vitest";
import { createSkillChoices } from "./skill-choices";

function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), items };
}

// Skill scripts are off unless the operator allows them, so a run that says neither runs no
// script (docs/decisions/0003-skills-from-a-public-registry.md); the operator's choices are remembered, and read back as untrusted.
describe("the operator's skill choices", () => {
  it("default to no attachment and no script allowed", () => {
    const choices = createSkillChoices(memoryStorage());
    expect(choices.attached()).toEqual([]);
    expect([...choices.scriptPins()]).toEqual([]);
  });

  it("remember attachments and allowed pins across page loads", () => {
    const storage = memoryStorage();
    const first = createSkillChoices(storage);
    first.setAttached("skh-a", true);
    first.setAttached("skh-b", true);
    first.setAttached("skh-a", false);
    first.setScriptsAllowed("acme/r@0123", true);
    const again = createSkillChoices(storage);
    expect(again.attached()).toEqual(["skh-b"]);
    expect(again.scriptPins().has("acme/r@0123")).toBe(true);
  });

  it.each([
    ["not JSON", "{"],
    ["the wrong shape", JSON.stringify({ attach: "skh-a", scriptPins: [] })],
    ["a non-string pin", JSON.stringify({ attach: [], scriptPins: [7] })],
  ])("start from nothing when storage holds %s (never a crash, never a partial allow)", (_, raw) => {
    const choices = createSkillChoices(memoryStorage({ "linux-in-a-tab:skill-choices": raw }));
    expect(choices.attached()).toEqual([]);
    expect([...choices.scriptPins()]).toEqual([]);
  });

  it("keep working for the page when storage is unavailable", () => {
    const choices = createSkillChoices(null);
    choices.setAttached("skh-a", true);
    expect(choices.attached()).toEqual(["skh-a"]);
  });
});

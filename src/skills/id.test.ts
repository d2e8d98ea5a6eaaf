import { describe, expect, it } from "vitest";
import { parseSkillId, parseSkillRef } from "./index";

// An id that does not have the {owner}/{repo}/{slug} shape is refused, not passed through
// sanitized: an odd id is how a name gets squatted.
const SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8";

describe("discovery ids have the owner/repo/slug shape", () => {
  it.each([
    ["a plain id", "acme/skills-repo/pdf-tools"],
    ["dots, underscores and hyphens in repo and slug", "acme/my.repo_x/skill.v2_b-c"],
    ["a colon in the slug", "acme/repo/ns:skill"],
    ["a 39-character owner", `${"a".repeat(39)}/r/s`],
    ["100-character repo and slug", `a/${"r".repeat(100)}/${"s".repeat(100)}`],
    ["a dot-led but not all-dots segment", "acme/.github/.hidden"],
  ])("accepted: %s", (_name, id) => {
    expect(parseSkillId(id)?.id).toBe(id);
  });

  it.each([
    ["two segments", "acme/skills-repo"],
    ["four segments", "acme/skills-repo/skills/pdf"],
    ["an empty segment", "acme//pdf"],
    ["a 40-character owner", `${"a".repeat(40)}/r/s`],
    ["a 101-character slug", `a/r/${"s".repeat(101)}`],
    ["an underscore in the owner", "ac_me/r/s"],
    ["a dot in the owner", "ac.me/r/s"],
    ["an all-dots repo", "acme/../s"],
    ["an all-dots slug", "acme/r/.."],
    ["a single-dot slug", "acme/r/."],
    ["a space", "acme/r/pdf tools"],
    ["a zero-width space", "acme/r/pdf\u200btools"],
    ["a right-to-left override", "acme/r/pdf\u202etools"],
    ["a newline", "acme/r/pdf\n"],
    ["a non-ASCII letter that looks ASCII", "acmе/r/s"],
    ["a path traversal", "../../etc/passwd"],
    ["a URL", "https://github.com/acme/r"],
  ])("refused: %s", (_name, id) => {
    expect(parseSkillId(id)).toBeNull();
  });
});

describe("a trailing @<40 lowercase hex> is taken as the pin without asking", () => {
  it("an id with a full SHA carries it as the pin", () => {
    const parsed = parseSkillRef(`acme/r/s@${SHA}`);
    expect(parsed).toEqual({ ok: true, value: { kind: "git", id: "acme/r/s", owner: "acme", repo: "r", slug: "s", pin: SHA } });
  });

  it("an id without @ has no pin", () => {
    const parsed = parseSkillRef("acme/r/s");
    expect(parsed.ok && parsed.value.kind === "git" && parsed.value.pin).toBeNull();
  });

  it.each([
    ["an abbreviated SHA", SHA.slice(0, 7)],
    ["uppercase hex", SHA.toUpperCase()],
    ["41 digits", `${SHA}0`],
    ["a branch name", "main"],
    ["a non-hex character", `${SHA.slice(0, 39)}g`],
    ["an empty pin", ""],
  ])("refused as bad-pin: %s", (_name, pin) => {
    const parsed = parseSkillRef(`acme/r/s@${pin}`);
    expect(parsed.ok ? null : parsed.verdict.code).toBe("bad-pin");
  });

  it("a bad id shape is refused before the pin is looked at", () => {
    const parsed = parseSkillRef(`acme/r@${SHA}`);
    expect(parsed.ok ? null : parsed.verdict.code).toBe("bad-request");
  });
});

describe("a well-known address names an index and an entry", () => {
  it("https://host/.well-known/agent-skills/index.json#name is a well-known ref", () => {
    const parsed = parseSkillRef("https://docs.example.com/.well-known/agent-skills/index.json#pdf-helper");
    expect(parsed).toEqual({
      ok: true,
      value: {
        kind: "well-known",
        id: "https://docs.example.com/.well-known/agent-skills/index.json#pdf-helper",
        indexUrl: "https://docs.example.com/.well-known/agent-skills/index.json",
        name: "pdf-helper",
      },
    });
  });

  it.each([
    ["plain http", "http://docs.example.com/.well-known/agent-skills/index.json#a", "not-https"],
    ["another path", "https://docs.example.com/skills/index.json#a", "bad-request"],
    ["no entry name", "https://docs.example.com/.well-known/agent-skills/index.json", "bad-request"],
    ["an uppercase name", "https://docs.example.com/.well-known/agent-skills/index.json#PDF", "bad-request"],
    ["a query string", "https://docs.example.com/.well-known/agent-skills/index.json?x=1#a", "bad-request"],
    ["credentials in the URL", "https://u:p@docs.example.com/.well-known/agent-skills/index.json#a", "bad-request"],
  ])("refused: %s", (_name, input, code) => {
    const parsed = parseSkillRef(input);
    expect(parsed.ok ? null : parsed.verdict.code).toBe(code);
  });
});

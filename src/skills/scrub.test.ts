import { describe, expect, it } from "vitest";
import { scrubSkillText, SKILL_TEXT_WITHHELD as W } from "./index";

// A skill's text reaches the run that attached it, never a view.
// What a model writes back about a skill it used is scrubbed of the skill's text before the
// operator's transcript shows it: any stretch of 32 characters or more that is also in the skill.

const SKILL = `<skill_context source="handle:skill:00">
# pdf-tools

Always convert PDF pages with pdftotext -layout before you summarise them, page by page.
Use   qpdf --decrypt for locked files.
</skill_context>
`;

describe("what a model writes back is scrubbed of the skills' text", () => {
  it.each([
    ["a sentence of the skill is withheld", "done Always convert PDF pages with pdftotext -layout first", `done ${W} first`],
    [
      "case and runs of whitespace do not hide a copy",
      "write n.txt ALWAYS  CONVERT pdf pages   WITH pdftotext -layout",
      `write n.txt ${W}`,
    ],
    ["a copy spanning two lines of the skill is withheld", "done page by page. Use qpdf --decrypt for locked files. ok", `done ${W} ok`],
    ["a short overlap (a name) stays", "run pdftotext -layout a.pdf", "run pdftotext -layout a.pdf"],
    ["text that is not in the skill stays", "done converted 3 pages", "done converted 3 pages"],
  ])("%s", (_, written, shown) => {
    expect(scrubSkillText(written, [SKILL])).toBe(shown);
  });

  it("withholds nothing when no skill was used", () => {
    expect(scrubSkillText("done Always convert PDF pages with pdftotext -layout", [])).toBe(
      "done Always convert PDF pages with pdftotext -layout",
    );
  });

  it("withholds copies of any of several skills", () => {
    const other = "Never push to main without a reviewed pull request in place.";
    expect(scrubSkillText(`a ${other} b Use qpdf --decrypt for locked files.`, [SKILL, other])).toBe(`a ${W} b ${W}`);
  });
});

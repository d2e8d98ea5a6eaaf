import { describe, expect, it } from "vitest";
import { MARKDOWN_MAX_CHARS } from "./markdown";
import { lessonMarkdownIssues } from "./markdown-check";
import { parseLesson } from "./parse";

const issuesOf = (source: string) => {
  const parsed = parseLesson(source);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return lessonMarkdownIssues(source, parsed.lesson);
};

const lesson = (fields: string) => `lesson: 1
title: T
summary: "[home](https://home.example/)"
steps:
  - title: One
    run: "true"
${fields}    expect:
      - verdict: host-not-allowed
        by: proxy
`;

describe("a lesson's Markdown as lesson check reads it", () => {
  it("a lesson whose links are all https has no Markdown issue", () => {
    expect(issuesOf(lesson("    text: |\n      # Heading\n\n      ```sh\n      ls\n      ```\n"))).toEqual([]);
  });

  it("each non-https link is reported in its field, hints by their index", () => {
    const issues = issuesOf(
      lesson(
        '    text: "[a](javascript:alert(1))"\n    hint:\n      - fine\n      - "<http://plain.example>"\n    explain: "[r]: /relative\\n\\n[r]"\n',
      ),
    );
    expect(issues.map((i) => [i.line, i.field, i.message.split(":")[0]])).toEqual([
      [7, "steps[0].text", "markdown-link-refused"],
      [10, "steps[0].hint[1]", "markdown-link-refused"],
      [11, "steps[0].explain", "markdown-link-refused"],
    ]);
    expect(issues[0]?.message).toContain('"javascript:alert(1)" is not an https: URL');
  });

  it("tables past the cell budget are reported", () => {
    const wide = `${"|a".repeat(200)}|\n${"|-".repeat(200)}|\n${"|\n".repeat(60)}`;
    const [issue] = issuesOf(lesson(`    text: ${JSON.stringify(wide)}\n`));
    expect(issue?.field).toBe("steps[0].text");
    expect(issue?.message).toMatch(/^markdown-table-too-large: its tables ask for more than 10000 cells/);
  });

  it("a text too long to be read as Markdown is reported with its length", () => {
    const long = "a".repeat(MARKDOWN_MAX_CHARS + 1);
    const [issue] = issuesOf(lesson(`    text: ${long}\n`));
    expect(issue?.field).toBe("steps[0].text");
    expect(issue?.message).toMatch(/^markdown-too-large: 65537 characters; /);
  });
});

import { describe, expect, it } from "vitest";
import { inlines, markdownBlocks } from "./markdown";

describe("a lesson's Markdown", () => {
  it("blank lines separate paragraphs; lines within one are joined", () => {
    expect(markdownBlocks("one\ntwo\n\nthree")).toEqual([
      { kind: "paragraph", inlines: [{ kind: "text", text: "one two" }] },
      { kind: "paragraph", inlines: [{ kind: "text", text: "three" }] },
    ]);
  });
  it("lines that all start with a dash are a list", () => {
    expect(markdownBlocks("- a\n- `b`")).toEqual([
      {
        kind: "list",
        items: [[{ kind: "text", text: "a" }], [{ kind: "code", text: "b" }]],
      },
    ]);
  });
  it("code, strong, emphasis and https links are recognised", () => {
    expect(inlines("run `ls`, **now**, *please*, see [docs](https://x.example/a)")).toEqual([
      { kind: "text", text: "run " },
      { kind: "code", text: "ls" },
      { kind: "text", text: ", " },
      { kind: "strong", text: "now" },
      { kind: "text", text: ", " },
      { kind: "em", text: "please" },
      { kind: "text", text: ", see " },
      { kind: "link", text: "docs", href: "https://x.example/a" },
    ]);
  });
  it("raw HTML stays literal text", () => {
    expect(inlines('<img src=x onerror="alert(1)">')).toEqual([{ kind: "text", text: '<img src=x onerror="alert(1)">' }]);
  });
  it("a link that is not https stays text", () => {
    expect(inlines("[x](javascript:alert(1))")).toEqual([{ kind: "text", text: "[x](javascript:alert(1))" }]);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Inline, inlines, MARKDOWN_MAX_CHARS, markdownBlocks } from "./markdown";

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

describe("reading a lesson's Markdown is linear in its length and capped", () => {
  it("62,000 unclosed [ are one text run, read once", () => {
    const text = "[".repeat(62_000);
    expect(markdownBlocks(text)).toEqual([{ kind: "paragraph", inlines: [{ kind: "text", text }] }]);
  });

  it("reads marks as the regular expression it replaces did, on any short text", () => {
    // The former reader: right on short text, quadratic on long unclosed marks.
    const FORMER = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\((https:\/\/[^\s)]+)\)/g;
    const former = (text: string): Inline[] => {
      const out: Inline[] = [];
      let at = 0;
      for (const m of text.matchAll(FORMER)) {
        if (m.index > at) out.push({ kind: "text", text: text.slice(at, m.index) });
        if (m[1] !== undefined) out.push({ kind: "code", text: m[1] });
        else if (m[2] !== undefined) out.push({ kind: "strong", text: m[2] });
        else if (m[3] !== undefined) out.push({ kind: "em", text: m[3] });
        else out.push({ kind: "link", text: m[4] ?? "", href: m[5] ?? "" });
        at = m.index + m[0].length;
      }
      if (at < text.length) out.push({ kind: "text", text: text.slice(at) });
      return out;
    };
    const piece = fc.constantFrom("[", "]", "(", ")", "`", "*", "**", " ", "\t", "a", "b c", "](https://", "https://x.example/p", ")");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(inlines(text)).toEqual(former(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("20,000 unclosed links are one text run, and a closed one after them is still found", () => {
    const brackets = "[a](".repeat(20_000);
    expect(inlines(`${brackets}[x](https://x.example/)`)).toEqual([
      { kind: "text", text: brackets },
      { kind: "link", text: "x", href: "https://x.example/" },
    ]);
  });

  it("250,000 characters (10× what froze the tab) are refused as markdown-too-large and shown plain", () => {
    const text = "[".repeat(250_000);
    const blocks = markdownBlocks(text);
    expect(blocks).toEqual([
      {
        kind: "refused",
        reason: expect.stringMatching(/^markdown-too-large: this text is 250000 characters; lesson text is read as Markdown up to 65536/),
        text: text.slice(0, MARKDOWN_MAX_CHARS),
      },
    ]);
  });

  it("the inline reader alone is linear too: 250,000 characters of mixed marks give the right runs", () => {
    const unit = "see [docs](https://d.example/x) and `ls` or **b** *e* [";
    const text = unit.repeat(Math.ceil(250_000 / unit.length));
    const out = inlines(text);
    const units = text.length / unit.length;
    expect(out.filter((i) => i.kind === "link")).toHaveLength(units);
    expect(out.filter((i) => i.kind === "code")).toHaveLength(units);
    expect(out.filter((i) => i.kind === "strong")).toHaveLength(units);
    expect(out.filter((i) => i.kind === "em")).toHaveLength(units);
    expect(out[0]).toEqual({ kind: "text", text: "see " });
    expect(out[1]).toEqual({ kind: "link", text: "docs", href: "https://d.example/x" });
  });
});

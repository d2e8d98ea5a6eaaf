import createMarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { MARKDOWN_MAX_CHARS, MARKDOWN_MAX_TABLE_CELLS, type MarkdownBlock, type MarkdownInline, parseLessonMarkdown } from "./markdown";
import { HOSTILE_MARKDOWN } from "./testing/hostile-markdown";

const blocks = (text: string) => parseLessonMarkdown(text).blocks;
const paragraph = (text: string): MarkdownInline[] => {
  const [first] = blocks(text);
  if (first?.kind !== "paragraph") throw new Error(`not one paragraph: ${JSON.stringify(first)}`);
  return first.inlines;
};
const t = (text: string): MarkdownInline => ({ kind: "text", text });

describe("a lesson's Markdown is CommonMark", () => {
  it("blank lines separate paragraphs; lines within one stay one paragraph", () => {
    expect(blocks("one\ntwo\n\nthree")).toEqual([
      { kind: "paragraph", inlines: [t("one\ntwo")] },
      { kind: "paragraph", inlines: [t("three")] },
    ]);
  });

  it("lines that start with a dash are a tight list whose items are blocks", () => {
    expect(blocks("- a\n- `b`")).toEqual([
      {
        kind: "list",
        ordered: false,
        start: 1,
        tight: true,
        items: [[{ kind: "paragraph", inlines: [t("a")] }], [{ kind: "paragraph", inlines: [{ kind: "code", text: "b" }] }]],
      },
    ]);
  });

  it("an ordered list keeps its start number, and a blank line between items makes it loose", () => {
    const [list] = blocks("3. x\n\n4. y");
    expect(list).toMatchObject({ kind: "list", ordered: true, start: 3, tight: false });
  });

  it("code, strong, emphasis (nested) and https links are recognised", () => {
    expect(paragraph("run `ls`, **now *please***, see [the *docs*](https://x.example/a)")).toEqual([
      t("run "),
      { kind: "code", text: "ls" },
      t(", "),
      { kind: "strong", children: [t("now "), { kind: "em", children: [t("please")] }] },
      t(", see "),
      { kind: "link", href: "https://x.example/a", children: [t("the "), { kind: "em", children: [t("docs")] }] },
    ]);
  });

  it("a fenced code block keeps its lines as written, and its language word", () => {
    expect(blocks("```sh\necho a_b *not emphasis*\n<b>x</b>\n```")).toEqual([
      { kind: "code", lang: "sh", text: "echo a_b *not emphasis*\n<b>x</b>\n" },
    ]);
    expect(blocks("~~~\nplain\n~~~")).toEqual([{ kind: "code", lang: null, text: "plain\n" }]);
  });

  it("ATX and setext headings carry their level", () => {
    expect(blocks("# One\n\n### Three *x*\n\nTwo\n---")).toEqual([
      { kind: "heading", level: 1, inlines: [t("One")] },
      { kind: "heading", level: 3, inlines: [t("Three "), { kind: "em", children: [t("x")] }] },
      { kind: "heading", level: 2, inlines: [t("Two")] },
    ]);
  });

  it("a GFM table has its header, alignment and rows; escaped pipes stay in a cell", () => {
    expect(blocks("| verdict | host |\n|:--|--:|\n| `allowed` | a\\|b |\n| refused |")).toEqual([
      {
        kind: "table",
        align: ["left", "right"],
        head: [[t("verdict")], [t("host")]],
        rows: [[[{ kind: "code", text: "allowed" }], [t("a|b")]], [[t("refused")]]],
      },
    ]);
  });

  it("a block quote holds blocks, and a thematic break is a rule", () => {
    expect(blocks("> quoted\n\n***")).toEqual([
      { kind: "quote", blocks: [{ kind: "paragraph", inlines: [t("quoted")] }] },
      { kind: "rule" },
    ]);
  });

  it("raw HTML, inline and as a block, stays literal text", () => {
    expect(paragraph('<img src=x onerror="alert(1)">')).toEqual([t('<img src=x onerror="alert(1)">')]);
    expect(blocks("<script>\nalert(1)\n</script>")).toEqual([{ kind: "paragraph", inlines: [t("<script>\nalert(1)\n</script>")] }]);
  });

  it("a link to javascript:, http: or a relative path is no link: it stays literal text and is reported", () => {
    const read = parseLessonMarkdown("[x](javascript:alert(1)) [y](http://plain.example/) [z](/etc/passwd) <http://auto.example>");
    expect(read.blocks).toEqual([
      { kind: "paragraph", inlines: [t("[x](javascript:alert(1)) [y](http://plain.example/) [z](/etc/passwd) <http://auto.example>")] },
    ]);
    expect(read.refusedLinks).toEqual(["javascript:alert(1)", "http://plain.example/", "/etc/passwd", "http://auto.example"]);
  });

  it("a reference definition to a non-https target defines nothing", () => {
    const read = parseLessonMarkdown("[r]: http://plain.example/\n\nsee [r]");
    expect(read.blocks.flatMap((b) => (b.kind === "paragraph" ? b.inlines : []))).not.toContainEqual(
      expect.objectContaining({ kind: "link" }),
    );
    expect(read.refusedLinks).toContain("http://plain.example/");
  });

  it("an https autolink and an https image are links; an image is never fetched, its alt text is the link", () => {
    expect(paragraph("<https://a.example/x> ![a *diagram*](https://i.example/p.png)")).toEqual([
      { kind: "link", href: "https://a.example/x", children: [t("https://a.example/x")] },
      t(" "),
      { kind: "image", href: "https://i.example/p.png", alt: "a diagram" },
    ]);
  });

  it("a trailing double space is a hard line break", () => {
    expect(paragraph("one  \ntwo")).toEqual([t("one"), { kind: "break" }, t("two")]);
  });

  it("one text's refused links are not carried into the next text", () => {
    parseLessonMarkdown("[a](http://x.example/)");
    expect(parseLessonMarkdown("plain").refusedLinks).toEqual([]);
  });
});

/** Every node of the tree, blocks and inlines, counted once. */
function nodeCount(bs: readonly MarkdownBlock[]): number {
  const inl = (is: readonly MarkdownInline[]): number =>
    is.reduce((n, i) => n + 1 + (i.kind === "strong" || i.kind === "em" || i.kind === "link" ? inl(i.children) : 0), 0);
  return bs.reduce((n, b) => {
    switch (b.kind) {
      case "paragraph":
      case "heading":
        return n + 1 + inl(b.inlines);
      case "list":
        return n + 1 + b.items.reduce((m, item) => m + 1 + nodeCount(item), 0);
      case "quote":
        return n + 1 + nodeCount(b.blocks);
      case "table":
        return n + 1 + [b.head, ...b.rows].reduce((m, row) => m + 1 + row.reduce((k, cell) => k + 1 + inl(cell), 0), 0);
      default:
        return n + 1;
    }
  }, 0);
}

/** markdown-it with every block and inline rule counted: the calls a text costs, a measure of work that no clock disturbs. */
function countingReader(): { read: (text: string) => void; calls: () => number } {
  const md = createMarkdownIt("commonmark", { html: false }).enable("table");
  let calls = 0;
  const counted = <A extends unknown[], R>(chain: { __rules__: { fn: (...args: A) => R }[]; __cache__: unknown }) => {
    for (const rule of chain.__rules__) {
      const fn = rule.fn;
      rule.fn = (...args: A) => {
        calls++;
        return fn(...args);
      };
    }
    chain.__cache__ = null;
  };
  counted(md.block.ruler);
  counted(md.inline.ruler);
  counted(md.inline.ruler2);
  counted(md.core.ruler);
  return {
    read: (text) => {
      md.parse(text, {});
    },
    calls: () => calls,
  };
}

describe("reading a lesson's Markdown is linear in its length and capped", () => {
  it("text past MARKDOWN_MAX_CHARS is refused as markdown-too-large and its start shown plain, unread", () => {
    const text = "[".repeat(250_000);
    expect(parseLessonMarkdown(text).blocks).toEqual([
      {
        kind: "refused",
        reason: expect.stringMatching(/^markdown-too-large: this text is 250000 characters; lesson text is read as Markdown up to 65536/),
        text: text.slice(0, MARKDOWN_MAX_CHARS),
      },
    ]);
  });

  it("text of exactly MARKDOWN_MAX_CHARS is still read as Markdown", () => {
    const text = `**b** ${"a".repeat(MARKDOWN_MAX_CHARS - 6)}`;
    expect(text).toHaveLength(MARKDOWN_MAX_CHARS);
    expect(paragraph(text)[0]).toEqual({ kind: "strong", children: [t("b")] });
  });

  it("62,000 unclosed [ are one text run", () => {
    const text = "[".repeat(62_000);
    expect(blocks(text)).toEqual([{ kind: "paragraph", inlines: [t(text)] }]);
  });

  it("a closed link after 15,000 unclosed ones is still found", () => {
    const brackets = "[a](".repeat(15_000);
    const inlines = paragraph(`${brackets}[x](https://x.example/)`);
    expect(inlines.at(-1)).toEqual({ kind: "link", href: "https://x.example/", children: [t("x")] });
  });

  it.each(Object.keys(HOSTILE_MARKDOWN))("%s: four times the text costs at most about four times the rule calls", (name) => {
    const make = HOSTILE_MARKDOWN[name]!;
    const cost = (n: number) => {
      const reader = countingReader();
      reader.read(make(n));
      return reader.calls();
    };
    const small = cost(MARKDOWN_MAX_CHARS / 8);
    const large = cost(MARKDOWN_MAX_CHARS / 2);
    expect(small).toBeGreaterThan(0);
    expect(large / small).toBeLessThan(4 * 1.5);
  });

  it.each(Object.keys(HOSTILE_MARKDOWN))("%s: the tree has no more nodes than the text has characters", (name) => {
    const text = HOSTILE_MARKDOWN[name]!(MARKDOWN_MAX_CHARS);
    expect(nodeCount(blocks(text))).toBeLessThanOrEqual(text.length);
  });
});

describe("a lesson's tables are read up to MARKDOWN_MAX_TABLE_CELLS cells", () => {
  it("a table within the budget is read whole, and nothing is cut", () => {
    const rows = "| a | b |\n".repeat(MARKDOWN_MAX_TABLE_CELLS / 2 - 1);
    const read = parseLessonMarkdown(`| h | i |\n|---|---|\n${rows}`);
    expect(read.tablesCut).toBe(false);
    expect(read.blocks).toHaveLength(1);
    expect(read.blocks[0]).toMatchObject({ kind: "table", head: [[t("h")], [t("i")]] });
    expect(read.blocks[0]?.kind === "table" && read.blocks[0].rows).toHaveLength(MARKDOWN_MAX_TABLE_CELLS / 2 - 1);
  });

  it("rows past the budget are not a table: they stay text, and the cut is reported", () => {
    const columns = 100;
    const text = `${"|a".repeat(columns)}|\n${"|-".repeat(columns)}|\n${"|\n".repeat(1000)}`;
    const read = parseLessonMarkdown(text);
    expect(read.tablesCut).toBe(true);
    const [table, rest] = read.blocks;
    expect(table?.kind === "table" && table.rows.length).toBe(MARKDOWN_MAX_TABLE_CELLS / columns - 1);
    expect(rest).toMatchObject({ kind: "paragraph" });
  });

  it("a second table past the budget is not read as one, and the cut is reported", () => {
    const big = `| a | b |\n|---|---|\n${"| 1 | 2 |\n".repeat(MARKDOWN_MAX_TABLE_CELLS / 2 - 1)}`;
    const read = parseLessonMarkdown(`${big}\nthen\n\n| x | y |\n|---|---|\n| 3 | 4 |\n`);
    expect(read.tablesCut).toBe(true);
    expect(read.blocks.map((b) => b.kind)).toEqual(["table", "paragraph", "paragraph"]);
  });

  it("paragraphs after a table that used the whole budget are not reported as cut", () => {
    const big = `| a | b |\n|---|---|\n${"| 1 | 2 |\n".repeat(MARKDOWN_MAX_TABLE_CELLS / 2 - 1)}`;
    const read = parseLessonMarkdown(`${big}\none\ntwo\n\nthree\nfour\n`);
    expect(read.tablesCut).toBe(false);
  });
});

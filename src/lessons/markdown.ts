import createMarkdownIt, { type MarkdownIt, type StateBlock, type Token } from "markdown-it";

/**
 * A lesson's Markdown (step text, summary, hints, explanations) read as CommonMark with GFM
 * tables, into a tree the page builds DOM nodes from, element by element, never as HTML.
 *
 * Lesson text comes from whoever wrote the lesson (a link, a file someone sent) and is read
 * after every command, so the reader is markdown-it (docs/lessons.md says why): linear on
 * every hostile input measured (bench/markdown.ts), raw HTML off (it stays literal text), and
 * each text capped at MARKDOWN_MAX_CHARS. Links and images go only to `https:` URLs; any other
 * target (`javascript:`, `http:`, a relative path) is not a link and stays literal text.
 */
export type MarkdownInline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong"; children: MarkdownInline[] }
  | { kind: "em"; children: MarkdownInline[] }
  | { kind: "link"; href: string; children: MarkdownInline[] }
  /** An image is shown as a link to it, its alt text as the link's text: a lesson never makes the page fetch. */
  | { kind: "image"; href: string; alt: string }
  | { kind: "break" };

export type TableAlign = "left" | "center" | "right" | null;

export type MarkdownBlock =
  | { kind: "paragraph"; inlines: MarkdownInline[] }
  | { kind: "heading"; level: number; inlines: MarkdownInline[] }
  /** A fenced (```) or indented code block; `lang` is the fence's first word, if any. */
  | { kind: "code"; lang: string | null; text: string }
  /** `tight`: no blank lines between items, so an item's paragraphs read as plain lines. */
  | { kind: "list"; ordered: boolean; start: number; tight: boolean; items: MarkdownBlock[][] }
  | { kind: "quote"; blocks: MarkdownBlock[] }
  | { kind: "table"; align: TableAlign[]; head: MarkdownInline[][]; rows: MarkdownInline[][][] }
  | { kind: "rule" }
  /** Text past MARKDOWN_MAX_CHARS: not read as Markdown; its start is shown as plain text with the reason. */
  | { kind: "refused"; reason: string; text: string };

export interface LessonMarkdown {
  blocks: MarkdownBlock[];
  /** Link and image targets that were not `https:` URLs, in the order met: each stayed literal text. */
  refusedLinks: string[];
  /** Table rows past MARKDOWN_MAX_TABLE_CELLS were not read as a table (they show as text). */
  tablesCut: boolean;
}

/** Each lesson text is read as Markdown up to this many characters; bench/markdown.ts measures the worst case at this size. */
export const MARKDOWN_MAX_CHARS = 64 * 1024;

/**
 * The most table cells one text is read as (all its tables, each row counted as wide as its
 * header). GFM pads a short row to the header's width, so a wide header over many `|` lines
 * asks for far more cells than the text has characters; markdown-it stops at 65,536 padded
 * cells, which was ten times the cost of any other hostile text. Rows past this stay text.
 */
export const MARKDOWN_MAX_TABLE_CELLS = 10_000;

/** The one URL scheme a lesson may link to. */
export function isLessonLinkTarget(url: string): boolean {
  // The prefix first: most refused targets are not URLs at all, and URL() throwing on each is slow.
  if (!/^https:\/\//i.test(url)) return false;
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}

/** How many columns a delimiter row (`|:--|--:|`) gives its table: its pipes, less an outer one at each end, plus one. */
function delimiterColumns(state: StateBlock, line: number): number {
  const text = state.src.slice((state.bMarks[line] ?? 0) + (state.tShift[line] ?? 0), state.eMarks[line] ?? 0).trim();
  let pipes = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x7c) pipes++;
  if (text.startsWith("|")) pipes--;
  if (text.length > 1 && text.endsWith("|")) pipes--;
  return Math.max(1, pipes + 1);
}

interface Reader {
  md: MarkdownIt;
  /** What the text being read asked for; reset before each text. */
  refused: Set<string>;
  tableCells: { left: number; cut: boolean };
}

function createReader(): Reader {
  // The commonmark preset (no linkify, no typographer, nesting capped at 20) plus GFM tables.
  const md = createMarkdownIt("commonmark", { html: false }).enable("table");
  const reader: Reader = { md, refused: new Set(), tableCells: { left: MARKDOWN_MAX_TABLE_CELLS, cut: false } };
  md.validateLink = (url: string) => {
    if (isLessonLinkTarget(url)) return true;
    reader.refused.add(url);
    return false;
  };
  // markdown-it's table rule, read only as far as the text's cell budget goes: it stops at the
  // line it is given as the end, and the rows after it are read as whatever else they are.
  const rules = md.block.ruler.__rules__;
  const table = rules[md.block.ruler.__find__("table")]?.fn;
  if (!table) throw new Error("markdown-it has no table rule");
  md.block.ruler.at("table", (state, startLine, endLine, silent) => {
    if (startLine + 1 >= endLine) return table(state, startLine, endLine, silent);
    const columns = delimiterColumns(state, startLine + 1);
    const budget = reader.tableCells;
    const rows = Math.floor(budget.left / columns) - 1; // the header is a row too
    if (rows < 0) {
      // Out of cells: a table here (its header and delimiter read, silently) is what was cut.
      if (table(state, startLine, startLine + 2, true)) budget.cut = true;
      return false;
    }
    const end = Math.min(endLine, startLine + 2 + rows);
    if (!table(state, startLine, end, silent)) return false;
    if (!silent) {
      budget.left -= columns * (state.line - startLine - 1);
      if (end < endLine && state.line === end && !state.isEmpty(end)) budget.cut = true;
    }
    return true;
  });
  return reader;
}

// Made on first use, so a bundle that imports the lessons core without reading Markdown leaves markdown-it out.
let reader: ReturnType<typeof createReader> | null = null;

type ListBlock = Extract<MarkdownBlock, { kind: "list" }>;

/** A lesson text as Markdown blocks: one pass of markdown-it, then one pass over its tokens. */
export function parseLessonMarkdown(text: string): LessonMarkdown {
  if (text.length > MARKDOWN_MAX_CHARS)
    return {
      blocks: [
        {
          kind: "refused",
          reason: `markdown-too-large: this text is ${text.length} characters; lesson text is read as Markdown up to ${MARKDOWN_MAX_CHARS}, so its start is shown as plain text`,
          text: text.slice(0, MARKDOWN_MAX_CHARS),
        },
      ],
      refusedLinks: [],
      tablesCut: false,
    };
  reader ??= createReader();
  reader.refused.clear();
  reader.tableCells = { left: MARKDOWN_MAX_TABLE_CELLS, cut: false };
  const blocks = readBlocks(reader.md.parse(text, {}));
  return { blocks, refusedLinks: [...reader.refused], tablesCut: reader.tableCells.cut };
}

/** Reads block tokens from `tokens` (a flat list with open/close pairs) into blocks: a stack, so it is linear. */
function readBlocks(tokens: readonly Token[]): MarkdownBlock[] {
  const root: MarkdownBlock[] = [];
  // Each open container: where its blocks go, or for a list, the list its items go in.
  const stack: { into: MarkdownBlock[]; list?: ListBlock }[] = [{ into: root }];
  const top = () => stack[stack.length - 1]!;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case "paragraph_open": {
        const inline = tokens[i + 1];
        top().into.push({ kind: "paragraph", inlines: readInlines(inline?.children ?? []) });
        i += 2; // inline, paragraph_close
        break;
      }
      case "heading_open": {
        const inline = tokens[i + 1];
        top().into.push({ kind: "heading", level: Number(t.tag.slice(1)) || 1, inlines: readInlines(inline?.children ?? []) });
        i += 2;
        break;
      }
      case "fence":
        top().into.push({ kind: "code", lang: t.info.trim().split(/\s+/)[0] || null, text: t.content });
        break;
      case "code_block":
        top().into.push({ kind: "code", lang: null, text: t.content });
        break;
      case "hr":
        top().into.push({ kind: "rule" });
        break;
      case "blockquote_open": {
        const quote: MarkdownBlock = { kind: "quote", blocks: [] };
        top().into.push(quote);
        stack.push({ into: quote.blocks });
        break;
      }
      case "bullet_list_open":
      case "ordered_list_open": {
        const start = Number(t.attrGet("start") ?? 1);
        const list: ListBlock = {
          kind: "list",
          ordered: t.type === "ordered_list_open",
          start: Number.isFinite(start) ? start : 1,
          tight: false,
          items: [],
        };
        top().into.push(list);
        // markdown-it hides the paragraphs of a tight list: its first item's first paragraph says which.
        list.tight = tokens[i + 2]?.type === "paragraph_open" && tokens[i + 2]?.hidden === true;
        // The list's entry holds no blocks itself: each list_item_open pushes one for its item.
        stack.push({ into: [], list });
        break;
      }
      case "list_item_open": {
        const item: MarkdownBlock[] = [];
        top().list?.items.push(item);
        stack.push({ into: item });
        break;
      }
      case "table_open":
        i = readTable(tokens, i, top().into);
        break;
      case "blockquote_close":
      case "bullet_list_close":
      case "ordered_list_close":
      case "list_item_close":
        if (stack.length > 1) stack.pop();
        break;
      default:
        // html_block never appears (html: false); anything else markdown-it adds later is skipped, not guessed at.
        break;
    }
  }
  return root;
}

/** Reads the table that opens at `open` into `into`; returns the index of its table_close. */
function readTable(tokens: readonly Token[], open: number, into: MarkdownBlock[]): number {
  const table: Extract<MarkdownBlock, { kind: "table" }> = { kind: "table", align: [], head: [], rows: [] };
  let inHead = false;
  let row: MarkdownInline[][] = [];
  let i = open + 1;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === "table_close") break;
    if (t.type === "thead_open") inHead = true;
    else if (t.type === "thead_close") inHead = false;
    else if (t.type === "tr_open") row = [];
    else if (t.type === "tr_close") {
      if (inHead) table.head = row;
      else {
        // GFM pads a short row with empty cells up to the header's width; those are dropped, so a
        // wide header over many short rows does not grow the page past the text's own size.
        while (row.length > 0 && row[row.length - 1]!.length === 0) row.pop();
        table.rows.push(row);
      }
    } else if (t.type === "th_open" || t.type === "td_open") {
      if (inHead) {
        const style = String(t.attrGet("style") ?? "");
        const align = /text-align:(left|center|right)/.exec(style)?.[1];
        table.align.push(align === "left" || align === "center" || align === "right" ? align : null);
      }
      const next = tokens[i + 1];
      row.push(next?.type === "inline" ? readInlines(next.children ?? []) : []);
    }
  }
  into.push(table);
  return i;
}

/** Reads one inline token's children (flat, with open/close pairs) into nested inlines. */
function readInlines(children: readonly Token[]): MarkdownInline[] {
  const root: MarkdownInline[] = [];
  const stack: MarkdownInline[][] = [root];
  const top = () => stack[stack.length - 1]!;
  const open = (node: Extract<MarkdownInline, { children: MarkdownInline[] }>) => {
    top().push(node);
    stack.push(node.children);
  };
  for (const t of children) {
    switch (t.type) {
      case "text": {
        if (t.content === "") break;
        // Adjacent text (markdown-it splits at every mark it tried) reads as one run.
        const last = top()[top().length - 1];
        if (last?.kind === "text") last.text += t.content;
        else top().push({ kind: "text", text: t.content });
        break;
      }
      case "code_inline":
        top().push({ kind: "code", text: t.content });
        break;
      case "softbreak": {
        const last = top()[top().length - 1];
        if (last?.kind === "text") last.text += "\n";
        else top().push({ kind: "text", text: "\n" });
        break;
      }
      case "hardbreak":
        top().push({ kind: "break" });
        break;
      case "strong_open":
        open({ kind: "strong", children: [] });
        break;
      case "em_open":
        open({ kind: "em", children: [] });
        break;
      case "link_open":
        open({ kind: "link", href: String(t.attrGet("href") ?? ""), children: [] });
        break;
      case "image":
        top().push({ kind: "image", href: String(t.attrGet("src") ?? ""), alt: (t.children ?? []).map((c) => c.content).join("") });
        break;
      case "strong_close":
      case "em_close":
      case "link_close":
        if (stack.length > 1) stack.pop();
        break;
      default:
        // html_inline never appears (html: false).
        break;
    }
  }
  return root;
}

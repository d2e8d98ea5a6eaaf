import { type MarkdownBlock, type MarkdownInline, parseLessonMarkdown } from "../../../lessons";

/**
 * A lesson text's DOM nodes: the core reads it as Markdown (src/lessons/markdown.ts), and each
 * block and mark here becomes an element made with createElement, its words set as text
 * nodes. Nothing is ever parsed as HTML, so whatever a lesson's author wrote stays words.
 */

/** An author's `#` heading sits under the step's own title (an h2): `#` is an h3, and so on to h6. */
const HEADING_OFFSET = 2;

function inlineNodes(doc: Document, inlines: readonly MarkdownInline[]): Node[] {
  return inlines.map((i) => inlineNode(doc, i));
}

function inlineNode(doc: Document, i: MarkdownInline): Node {
  switch (i.kind) {
    case "text":
      return doc.createTextNode(i.text);
    case "code": {
      const code = doc.createElement("code");
      code.textContent = i.text;
      return code;
    }
    case "break":
      return doc.createElement("br");
    case "strong":
    case "em": {
      const el = doc.createElement(i.kind);
      el.append(...inlineNodes(doc, i.children));
      return el;
    }
    case "link":
      return outsideLink(doc, i.href, inlineNodes(doc, i.children));
    case "image":
      return outsideLink(doc, i.href, [doc.createTextNode(i.alt || i.href)]);
  }
}

/** A link out of the page: a new tab, no opener, no referrer (the core let only https: URLs through). */
function outsideLink(doc: Document, href: string, content: Node[]): HTMLAnchorElement {
  const a = doc.createElement("a");
  a.setAttribute("href", href);
  a.setAttribute("target", "_blank");
  a.setAttribute("rel", "noopener noreferrer");
  a.append(...content);
  return a;
}

function blockNode(doc: Document, b: MarkdownBlock, tight = false): Node[] {
  switch (b.kind) {
    case "paragraph": {
      // In a tight list an item's paragraph is its line, with no paragraph spacing.
      if (tight) return inlineNodes(doc, b.inlines);
      const p = doc.createElement("p");
      p.append(...inlineNodes(doc, b.inlines));
      return [p];
    }
    case "heading": {
      const h = doc.createElement(`h${Math.min(6, b.level + HEADING_OFFSET)}`);
      h.className = "lesson-heading";
      h.append(...inlineNodes(doc, b.inlines));
      return [h];
    }
    case "code": {
      const pre = doc.createElement("pre");
      pre.className = "lesson-code";
      const code = doc.createElement("code");
      if (b.lang) code.dataset.lang = b.lang;
      code.textContent = b.text;
      pre.append(code);
      return [pre];
    }
    case "list": {
      const list = doc.createElement(b.ordered ? "ol" : "ul");
      if (b.ordered && b.start !== 1) list.setAttribute("start", String(b.start));
      for (const item of b.items) {
        const li = doc.createElement("li");
        li.append(...item.flatMap((inner) => blockNode(doc, inner, b.tight)));
        list.append(li);
      }
      return [list];
    }
    case "quote": {
      const quote = doc.createElement("blockquote");
      quote.append(...b.blocks.flatMap((inner) => blockNode(doc, inner)));
      return [quote];
    }
    case "table":
      return [tableNode(doc, b)];
    case "rule":
      return [doc.createElement("hr")];
    case "refused": {
      const box = doc.createElement("div");
      const note = doc.createElement("p");
      note.className = "lesson-markdown-refused";
      note.textContent = b.reason;
      const plain = doc.createElement("p");
      plain.textContent = `${b.text}…`;
      box.append(note, plain);
      return [box];
    }
  }
}

function tableNode(doc: Document, b: Extract<MarkdownBlock, { kind: "table" }>): HTMLElement {
  // A wide table scrolls inside its own box instead of widening the lesson panel.
  const box = doc.createElement("div");
  box.className = "lesson-table";
  const table = doc.createElement("table");
  const row = (cells: readonly MarkdownInline[][], tag: "th" | "td") => {
    const tr = doc.createElement("tr");
    cells.forEach((cell, column) => {
      const el = doc.createElement(tag);
      const align = b.align[column];
      if (align) el.style.textAlign = align;
      el.append(...inlineNodes(doc, cell));
      tr.append(el);
    });
    return tr;
  };
  const head = doc.createElement("thead");
  head.append(row(b.head, "th"));
  table.append(head);
  if (b.rows.length > 0) {
    const body = doc.createElement("tbody");
    body.append(...b.rows.map((r) => row(r, "td")));
    table.append(body);
  }
  box.append(table);
  return box;
}

/**
 * The player redraws its card on every state change (each command, each attempt), so each text
 * is read once and its tree kept: a hostile text costs its worst case once, not per redraw.
 */
const READ_KEPT = 64;
const read = new Map<string, readonly MarkdownBlock[]>();

function blocksOf(text: string): readonly MarkdownBlock[] {
  let blocks = read.get(text);
  if (!blocks) {
    blocks = parseLessonMarkdown(text).blocks;
    if (read.size >= READ_KEPT) read.clear();
    read.set(text, blocks);
  }
  return blocks;
}

/** DOM nodes for a lesson text. */
export function renderMarkdown(doc: Document, text: string): Node[] {
  return blocksOf(text).flatMap((b) => blockNode(doc, b));
}

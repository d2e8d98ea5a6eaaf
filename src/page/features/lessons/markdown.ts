/**
 * The Markdown a lesson's text may use, as a tree the view builds DOM nodes from (text
 * nodes and a few elements, never HTML): paragraphs, `-`/`*` lists, inline `code`,
 * **strong**, *emphasis* and [links](https://…). Anything else, raw HTML included, stays
 * literal text.
 */
export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong"; text: string }
  | { kind: "em"; text: string }
  | { kind: "link"; text: string; href: string };

export type Block = { kind: "paragraph"; inlines: Inline[] } | { kind: "list"; items: Inline[][] };

const LIST_ITEM = /^\s*[-*]\s+(.*)$/;

export function markdownBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  for (const chunk of text.replace(/\r\n?/g, "\n").split(/\n\s*\n/)) {
    const lines = chunk.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) continue;
    if (lines.every((l) => LIST_ITEM.test(l))) {
      blocks.push({ kind: "list", items: lines.map((l) => inlines(LIST_ITEM.exec(l)?.[1] ?? "")) });
    } else blocks.push({ kind: "paragraph", inlines: inlines(lines.map((l) => l.trim()).join(" ")) });
  }
  return blocks;
}

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\((https:\/\/[^\s)]+)\)/g;

export function inlines(text: string): Inline[] {
  const out: Inline[] = [];
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > at) out.push({ kind: "text", text: text.slice(at, m.index) });
    if (m[1] !== undefined) out.push({ kind: "code", text: m[1] });
    else if (m[2] !== undefined) out.push({ kind: "strong", text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: "em", text: m[3] });
    else out.push({ kind: "link", text: m[4] ?? "", href: m[5] ?? "" });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ kind: "text", text: text.slice(at) });
  return out;
}

/** DOM nodes for the text: elements made one by one, their content set as text. */
export function renderMarkdown(doc: Document, text: string): Node[] {
  const inline = (i: Inline): Node => {
    if (i.kind === "text") return doc.createTextNode(i.text);
    const tag = i.kind === "link" ? "a" : i.kind;
    const el = doc.createElement(tag);
    el.textContent = i.text;
    if (i.kind === "link") {
      el.setAttribute("href", i.href);
      el.setAttribute("target", "_blank");
      el.setAttribute("rel", "noopener noreferrer");
    }
    return el;
  };
  return markdownBlocks(text).map((b) => {
    if (b.kind === "paragraph") {
      const p = doc.createElement("p");
      p.append(...b.inlines.map(inline));
      return p;
    }
    const ul = doc.createElement("ul");
    for (const item of b.items) {
      const li = doc.createElement("li");
      li.append(...item.map(inline));
      ul.append(li);
    }
    return ul;
  });
}

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

export type Block =
  | { kind: "paragraph"; inlines: Inline[] }
  | { kind: "list"; items: Inline[][] }
  /** Text past MARKDOWN_MAX_CHARS: not read as Markdown; its start is shown as plain text with the reason. */
  | { kind: "refused"; reason: string; text: string };

/**
 * Lesson text comes from whoever wrote the lesson (a link, a file someone sent) and is rendered
 * after every command, so reading it is linear in its length and capped: longer text is shown
 * plain (its first MARKDOWN_MAX_CHARS characters), with `markdown-too-large` and the reason.
 */
export const MARKDOWN_MAX_CHARS = 64 * 1024;

const LIST_ITEM = /^\s*[-*]\s+(.*)$/;

export function markdownBlocks(text: string): Block[] {
  if (text.length > MARKDOWN_MAX_CHARS)
    return [
      {
        kind: "refused",
        reason: `markdown-too-large: this text is ${text.length} characters; lesson text is read as Markdown up to ${MARKDOWN_MAX_CHARS}, so its start is shown as plain text`,
        text: text.slice(0, MARKDOWN_MAX_CHARS),
      },
    ];
  const blocks: Block[] = [];
  for (const chunk of text.replace(/\r\n?/g, "\n").split(/\n[^\S\n]*\n/)) {
    const lines = chunk.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) continue;
    if (lines.every((l) => LIST_ITEM.test(l))) {
      blocks.push({ kind: "list", items: lines.map((l) => inlines(LIST_ITEM.exec(l)?.[1] ?? "")) });
    } else blocks.push({ kind: "paragraph", inlines: inlines(lines.map((l) => l.trim()).join(" ")) });
  }
  return blocks;
}

const NONE = -1;

/** For each position, the index of the next character (at or after it) that `is`, else NONE: one pass from the end. */
function nextWhere(text: string, is: (c: string) => boolean): Int32Array {
  const next = new Int32Array(text.length + 1).fill(NONE);
  for (let i = text.length - 1; i >= 0; i--) next[i] = is(text.charAt(i)) ? i : (next[i + 1] ?? NONE);
  return next;
}

const SPACE = /\s/;
const LINK_TARGET = "](https://";

/**
 * The inline marks in one paragraph or item: `code`, **strong**, *emphasis*, [text](https://…),
 * tried in that order at each character, anything else literal. Each attempt reads the next
 * closing character from a table built in one pass, so the whole is linear in the text (a
 * regular expression here rescanned to the end for every unclosed `[`: 62,000 of them took
 * seconds).
 */
export function inlines(text: string): Inline[] {
  const at = (i: number) => text.charAt(i);
  const nextTick = nextWhere(text, (c) => c === "`");
  const nextStar = nextWhere(text, (c) => c === "*");
  const nextClose = nextWhere(text, (c) => c === "]");
  const nextUrlEnd = nextWhere(text, (c) => c === ")" || SPACE.test(c));
  const next = (table: Int32Array, i: number) => (i <= text.length ? (table[i] ?? NONE) : NONE);

  /** The mark starting at `i`, and where the text after it starts, or null. */
  const markAt = (i: number): { mark: Inline; end: number } | null => {
    const c = at(i);
    if (c === "`") {
      const close = next(nextTick, i + 1);
      if (close > i + 1) return { mark: { kind: "code", text: text.slice(i + 1, close) }, end: close + 1 };
    }
    if (c === "*" && at(i + 1) === "*") {
      const close = next(nextStar, i + 2);
      if (close > i + 2 && at(close + 1) === "*") return { mark: { kind: "strong", text: text.slice(i + 2, close) }, end: close + 2 };
    }
    if (c === "*" && i + 1 < text.length && at(i + 1) !== "*" && !SPACE.test(at(i + 1))) {
      const close = next(nextStar, i + 2);
      if (close !== NONE) return { mark: { kind: "em", text: text.slice(i + 1, close) }, end: close + 1 };
    }
    if (c === "[") {
      const close = next(nextClose, i + 1);
      if (close > i + 1 && text.startsWith(LINK_TARGET, close)) {
        const urlStart = close + 2;
        const urlEnd = next(nextUrlEnd, close + LINK_TARGET.length);
        if (urlEnd > close + LINK_TARGET.length && at(urlEnd) === ")")
          return { mark: { kind: "link", text: text.slice(i + 1, close), href: text.slice(urlStart, urlEnd) }, end: urlEnd + 1 };
      }
    }
    return null;
  };

  const out: Inline[] = [];
  let literalFrom = 0;
  let i = 0;
  while (i < text.length) {
    const found = markAt(i);
    if (!found) {
      i += 1;
      continue;
    }
    if (i > literalFrom) out.push({ kind: "text", text: text.slice(literalFrom, i) });
    out.push(found.mark);
    i = found.end;
    literalFrom = i;
  }
  if (literalFrom < text.length) out.push({ kind: "text", text: text.slice(literalFrom) });
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
    if (b.kind === "refused") {
      const box = doc.createElement("div");
      const note = doc.createElement("p");
      note.className = "lesson-markdown-refused";
      note.textContent = b.reason;
      const plain = doc.createElement("p");
      plain.textContent = `${b.text}…`;
      box.append(note, plain);
      return box;
    }
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

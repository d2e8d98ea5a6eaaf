/**
 * Hostile lesson texts of a given length: the shapes that made Markdown readers quadratic
 * (long runs of `*`, `_`, `[`, backticks, nested `>` and list markers, link reference storms, a
 * wide table). The linearity tests count work on them; bench/markdown.ts times them.
 */
const rep = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

const SHAPES: Record<string, (n: number) => string> = {
  "*": (n) => rep("*", n),
  _: (n) => rep("_", n),
  "a*": (n) => rep("a*", n),
  "*a_ (mismatched)": (n) => rep("*a_ ", n),
  "*a **a (nested)": (n) => rep("*a **a ", n / 2) + rep("b**", n / 2),
  "unclosed [": (n) => rep("[", n),
  "[a](": (n) => rep("[a](", n),
  "![[a]": (n) => rep("![[a]", n),
  "[ (](": (n) => rep("[ (](", n),
  "backtick runs": (n) => {
    let s = "";
    for (let i = 1; s.length < n; i++) s += `${"`".repeat(i)}a`;
    return s.slice(0, n);
  },
  "nested >": (n) => rep(">", n),
  "> per line, deeper": (n) => {
    let s = "";
    for (let i = 1; s.length < n; i++) s += `${">".repeat(i)} a\n`;
    return s.slice(0, n);
  },
  "nested list markers": (n) => rep("- ", n),
  "list lines, deeper": (n) => {
    let s = "";
    for (let i = 0; s.length < n; i++) s += `${" ".repeat(i * 2)}- a\n`;
    return s.slice(0, n);
  },
  "reference storm": (n) => `[a]: https://x.example\n\n${rep("[a]", n)}`,
  "reference definitions": (n) => rep("[a]: <", n),
  "table, many columns": (n) => `${"|a".repeat(n / 4)}|\n${"|-".repeat(n / 4)}|\n`,
  "wide table over short rows": (n) => `${"|a".repeat(n / 8)}|\n${"|-".repeat(n / 8)}|\n${rep("|\n", n / 2)}`,
  "table rows of pipes": (n) => `a|b\n-|-\n${rep("||||||||\n", n)}`,
  "<a (raw HTML)": (n) => rep("<a ", n),
};

/** Each shape, cut to exactly `n` characters. */
export const HOSTILE_MARKDOWN: Record<string, (n: number) => string> = Object.fromEntries(
  Object.entries(SHAPES).map(([name, make]) => [name, (n: number) => make(n).slice(0, n)]),
);

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// No function in src/page is longer than 150 lines (issue 50): a feature's `mount` that grows
// past that is several concerns in one closure, and is split into named pieces, one per file.
// Measured by the compiler's own reading of each file: every function, method, arrow and
// accessor with a body, from its first line to its last (nested functions count in the
// function that holds them, as a reader meets them). Tests are left out.

const MAX_LINES = 150;
const PAGE = "src/page";

interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** The functions in `source` longer than `max` lines. */
function longFunctions(file: string, source: string, max = MAX_LINES): LongFunction[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = lineOf(node.getStart(sf));
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > max) found.push({ file, line: first, name: nameOf(node, sf), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function nameOf(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  // An arrow or function expression takes the name of what holds it (`const mount = () => …`).
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText(sf);
  return "(anonymous)";
}

function pageFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return pageFiles(path);
    return /\.ts$/.test(name) && !name.endsWith(".d.ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

describe(`no function in ${PAGE} is longer than ${MAX_LINES} lines`, () => {
  it("holds for every file of src/page", () => {
    const long = pageFiles(PAGE).flatMap((file) => longFunctions(file, readFileSync(file, "utf8")));
    expect(long.map((f) => `${f.file}:${f.line} ${f.name}: ${f.lines} lines`)).toEqual([]);
  });

  it("finds a function, a method and an arrow one line past the limit, and none at it", () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const source = [
      `export function atLimit() {\n${body(MAX_LINES)}\n}`,
      `export function tooLong() {\n${body(MAX_LINES + 1)}\n}`,
      `class C {\n  method() {\n${body(MAX_LINES + 1)}\n  }\n}`,
      `const arrow = () => {\n${body(MAX_LINES + 1)}\n};`,
    ].join("\n");
    expect(longFunctions("sample.ts", source).map((f) => `${f.name} ${f.lines}`)).toEqual([
      `tooLong ${MAX_LINES + 1}`,
      `method ${MAX_LINES + 1}`,
      `arrow ${MAX_LINES + 1}`,
    ]);
  });
});

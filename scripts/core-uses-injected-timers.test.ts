import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// src/platform/time.ts: every core component that waits takes `Timers` from its host, so a test
// moves time by hand and a host decides what a timer is (Node's unref'd ones, the page's). This
// holds the core to it: no core file calls the host's timers itself (setTimeout, setInterval,
// their clears, setImmediate), bare or through globalThis/window/self. The one place that
// reaches them is systemTimers in src/platform/time.ts. Tests and test support (`testing/`)
// run under Node and may let real I/O settle.

const SRC = "src";
/** Folders of src/ that are hosts, not core: the page and the Node command line. */
const HOSTS = new Set(["page", "cli"]);
const TIMER_NAMES = new Set(["setTimeout", "setInterval", "clearTimeout", "clearInterval", "setImmediate", "clearImmediate"]);
const GLOBAL_OBJECTS = new Set(["globalThis", "window", "self", "global"]);
/** The one reading of the host's timers. */
const ALLOWED = new Set([join(SRC, "platform", "time.ts")]);

function coreFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (dir === SRC && HOSTS.has(name)) return [];
      if (name === "testing") return [];
      return coreFiles(path);
    }
    return /\.ts$/.test(name) && !name.endsWith(".d.ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Each use of a host timer in `source`: "line: text". */
function globalTimerUses(source: string, fileName = "file.ts"): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`${line + 1}: ${node.getText(file)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && TIMER_NAMES.has(node.text)) {
      const parent = node.parent;
      const isName =
        // obj.setTimeout(…): a member (Timers' own), not the global, unless obj is the global object
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        // declarations of a member or a property with that name: Timers' shape, an object literal's method
        ((ts.isMethodSignature(parent) ||
          ts.isMethodDeclaration(parent) ||
          ts.isPropertyAssignment(parent) ||
          ts.isPropertySignature(parent) ||
          ts.isPropertyDeclaration(parent)) &&
          parent.name === node);
      if (!isName) report(node);
      else if (ts.isPropertyAccessExpression(parent) && ts.isIdentifier(parent.expression) && GLOBAL_OBJECTS.has(parent.expression.text))
        report(parent);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("the core uses the Timers its host injects, never the global timers", () => {
  it("no core file outside src/platform/time.ts reaches for setTimeout, setInterval, their clears or setImmediate", () => {
    const uses = coreFiles(SRC)
      .filter((file) => !ALLOWED.has(file))
      .flatMap((file) =>
        globalTimerUses(readFileSync(file, "utf8"), file).map((use) => `${relative(".", file).split(sep).join("/")}:${use}`),
      );
    expect(uses).toEqual([]);
  });

  it("finds a bare call, a reference passed on, and one through globalThis; not Timers' own members", () => {
    const source = [
      "setTimeout(() => 1, 5);",
      "const t = { now: () => 0, setTimeout(cb: () => void, ms: number) { return 0; }, clearTimeout: (h: unknown) => undefined };",
      "t.setTimeout(() => 1, 5);",
      "new Promise((r) => setImmediate(r));",
      "globalThis.clearTimeout(1);",
      "interface T { setTimeout(cb: () => void, ms: number): unknown }",
    ].join("\n");
    expect(globalTimerUses(source)).toEqual(["1: setTimeout", "4: setImmediate", "5: globalThis.clearTimeout"]);
  });
});

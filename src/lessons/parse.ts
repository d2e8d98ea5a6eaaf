import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { z } from "zod";
import { Lesson } from "./schema";

/** One thing wrong with a lesson file, where it is (1-based line and column) and which field. */
export interface LessonIssue {
  line: number;
  column: number;
  /** The field's path, e.g. `steps[1].expect[0].verdict`; "" for the document itself. */
  field: string;
  message: string;
}

export type LessonParse = { ok: true; lesson: Lesson } | { ok: false; code: "lesson-invalid"; issues: LessonIssue[] };

type Segment = string | number;

function fieldName(path: readonly Segment[]): string {
  let out = "";
  for (const seg of path) out += typeof seg === "number" ? `[${seg}]` : out === "" ? seg : `.${seg}`;
  return out;
}

/** The deepest node the path reaches (a missing field points at the map that lacks it), and the key node when `key` names one. */
function locate(root: Node | null, path: readonly Segment[], key?: string): number {
  let node: unknown = root;
  let offset = root?.range?.[0] ?? 0;
  const steps: Segment[] = key === undefined ? [...path] : [...path, key];
  for (const [i, seg] of steps.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      // The last segment of an unknown key points at the key itself; others at the value.
      const last = i === steps.length - 1;
      const target = last && key !== undefined ? pair.key : (pair.value ?? pair.key);
      const range = (target as Node | null)?.range;
      if (range) offset = range[0];
      node = target;
    } else if (isSeq(node) && typeof seg === "number") {
      const item = node.items[seg] as Node | undefined;
      if (!item?.range) break;
      offset = item.range[0];
      node = item;
    } else break;
  }
  return offset;
}

function issuesOf(error: z.ZodError, root: Node | null, lines: LineCounter): LessonIssue[] {
  const out: LessonIssue[] = [];
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  for (const issue of error.issues) {
    const path = issue.path.filter((s): s is Segment => typeof s !== "symbol");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        out.push({ ...at(locate(root, path, key)), field: fieldName([...path, key]), message: `unknown field "${key}"` });
      continue;
    }
    const message = issue.code === "invalid_type" && issue.input === undefined ? "required" : issue.message;
    out.push({ ...at(locate(root, path)), field: fieldName(path), message });
  }
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * Reads a lesson file (YAML) into a `Lesson`, or every issue in it with its position: YAML
 * syntax errors first (nothing else can be checked then), else every schema error at once.
 */
export function parseLesson(text: string): LessonParse {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0)
    return {
      ok: false,
      code: "lesson-invalid",
      issues: doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        return { line: pos.line, column: pos.col, field: "", message: `YAML: ${e.message.split("\n")[0]}` };
      }),
    };
  const root = doc.contents as Node | null;
  if (!isMap(root)) {
    const pos = lines.linePos(root?.range?.[0] ?? 0);
    return {
      ok: false,
      code: "lesson-invalid",
      issues: [{ line: pos.line, column: pos.col, field: "", message: "a lesson is a YAML mapping (lesson: 1, title, steps…)" }],
    };
  }
  const parsed = Lesson.safeParse(doc.toJS());
  if (parsed.success) return { ok: true, lesson: parsed.data };
  return { ok: false, code: "lesson-invalid", issues: issuesOf(parsed.error, root, lines) };
}

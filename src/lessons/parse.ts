import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, visit } from "yaml";
import type { z } from "zod";
import { messageOf } from "../platform";
import { estimatedInstructions } from "./output-pattern";
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

/** A field's path as a lesson author writes it: `steps[1].hint[0]`. */
export function fieldName(path: readonly Segment[]): string {
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
 * A lesson may come from a link or a stranger's file, so reading one is bounded: its size, its
 * node count (keys, values, items), and what its aliases expand to (an alias bomb: nine lists of
 * nine aliases of the list before, 9^7 strings from a few hundred bytes). The largest shipped
 * lesson is ~3 KB and ~200 nodes; a draft link carries at most 64 KiB.
 */
export const LESSON_MAX_CHARS = 128 * 1024;
export const LESSON_MAX_NODES = 10_000;
/** All of a lesson's `output:` patterns together, in estimated RE2 instructions (compiling costs ~2.5 µs each). */
export const LESSON_MAX_PATTERN_INSTRUCTIONS = 100_000;
/** yaml's maxAliasCount: how many nodes alias references may add when the document is read. */
export const LESSON_MAX_ALIAS_EXPANSION = 100;

type Refusal = { ok: false; code: "lesson-invalid"; issues: LessonIssue[] };

const refusal = (line: number, column: number, message: string): Refusal => ({
  ok: false,
  code: "lesson-invalid",
  issues: [{ line, column, field: "", message }],
});

/**
 * Keys repeated in one mapping, found with a set per mapping: yaml's own `uniqueKeys` compares
 * each key with every earlier one (26,000 keys took 14 s). Also counts the nodes.
 */
function shapeIssues(
  doc: ReturnType<typeof parseDocument>,
  lines: LineCounter,
): { nodes: number; firstAlias: number | null; duplicates: LessonIssue[]; patternsPastCap: number | null } {
  let nodes = 0;
  let patternInstructions = 0;
  let patternsPastCap: number | null = null;
  let firstAlias: number | null = null;
  const duplicates: LessonIssue[] = [];
  visit(doc, (_key, node) => {
    nodes += 1;
    if (nodes > LESSON_MAX_NODES) return visit.BREAK;
    if (isAlias(node) && firstAlias === null) firstAlias = node.range?.[0] ?? 0;
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        if (pair.key.value === "output" && isScalar(pair.value) && typeof pair.value.value === "string") {
          patternInstructions += estimatedInstructions(pair.value.value);
          if (patternInstructions > LESSON_MAX_PATTERN_INSTRUCTIONS && patternsPastCap === null)
            patternsPastCap = pair.value.range?.[0] ?? 0;
        }
        if (seen.has(pair.key.value)) {
          const pos = lines.linePos(pair.key.range?.[0] ?? 0);
          duplicates.push({ line: pos.line, column: pos.col, field: "", message: "YAML: Map keys must be unique" });
        }
        seen.add(pair.key.value);
      }
    }
    return undefined;
  });
  return { nodes, firstAlias, duplicates, patternsPastCap };
}

/**
 * Reads a lesson file (YAML) into a `Lesson`, or every issue in it with its position: YAML
 * syntax errors first (nothing else can be checked then), else every schema error at once.
 * Input past the caps above is refused with the cap it passed, never read further.
 */
export function parseLesson(text: string): LessonParse {
  if (text.length > LESSON_MAX_CHARS)
    return refusal(1, 1, `lesson-too-large: the file is ${text.length} characters; a lesson has at most ${LESSON_MAX_CHARS}`);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0)
    return {
      ok: false,
      code: "lesson-invalid",
      issues: doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        return { line: pos.line, column: pos.col, field: "", message: `YAML: ${e.message.split("\n")[0]}` };
      }),
    };
  const shape = shapeIssues(doc, lines);
  if (shape.nodes > LESSON_MAX_NODES)
    return refusal(1, 1, `lesson-too-large: the file has more than ${LESSON_MAX_NODES} YAML nodes (keys, values, items)`);
  if (shape.duplicates.length > 0) return { ok: false, code: "lesson-invalid", issues: shape.duplicates };
  if (shape.patternsPastCap !== null) {
    // Refused before any pattern is compiled: compiling is what this cap bounds.
    const at = lines.linePos(shape.patternsPastCap);
    return refusal(
      at.line,
      at.col,
      `lesson-too-large: the output patterns together would compile to more than ${LESSON_MAX_PATTERN_INSTRUCTIONS} instructions`,
    );
  }
  const root = doc.contents as Node | null;
  if (!isMap(root)) {
    const pos = lines.linePos(root?.range?.[0] ?? 0);
    return {
      ok: false,
      code: "lesson-invalid",
      issues: [{ line: pos.line, column: pos.col, field: "", message: "a lesson is a YAML mapping (lesson: 1, title, steps…)" }],
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: LESSON_MAX_ALIAS_EXPANSION });
  } catch (error) {
    // yaml throws a ReferenceError for an alias bomb; anything else it throws is also this file's issue.
    const at = lines.linePos(shape.firstAlias ?? 0);
    const bomb = error instanceof ReferenceError && shape.firstAlias !== null;
    return refusal(
      at.line,
      at.col,
      bomb
        ? `lesson-alias-bomb: its aliases (*name) expand past ${LESSON_MAX_ALIAS_EXPANSION} nodes: refused, not expanded`
        : `YAML: cannot be read: ${messageOf(error)}`,
    );
  }
  const parsed = Lesson.safeParse(value);
  if (parsed.success) return { ok: true, lesson: parsed.data };
  return { ok: false, code: "lesson-invalid", issues: issuesOf(parsed.error, root, lines) };
}

import { isNode, LineCounter, parseDocument } from "yaml";
import { MARKDOWN_MAX_CHARS, MARKDOWN_MAX_TABLE_CELLS, parseLessonMarkdown } from "./markdown";
import { fieldName, type LessonIssue } from "./parse";
import { type Lesson, stepHints } from "./schema";

/** Every Markdown field of a lesson: where it is in the file, and its text. */
function markdownFields(lesson: Lesson): { path: (string | number)[]; text: string }[] {
  const fields: { path: (string | number)[]; text: string }[] = [];
  if (lesson.summary !== undefined) fields.push({ path: ["summary"], text: lesson.summary });
  lesson.steps.forEach((step, i) => {
    if (step.text !== undefined) fields.push({ path: ["steps", i, "text"], text: step.text });
    if (typeof step.hint === "string") fields.push({ path: ["steps", i, "hint"], text: step.hint });
    else for (const [j, hint] of stepHints(step).entries()) fields.push({ path: ["steps", i, "hint", j], text: hint });
    if (step.explain !== undefined) fields.push({ path: ["steps", i, "explain"], text: step.explain });
  });
  return fields;
}

/**
 * What a reader would not see as the author meant it, in a lesson that is otherwise valid
 * (`npx tab lesson check` reports these): a text too long to be read as Markdown (the page
 * shows its start as plain text), a link or image whose target is not `https:` (the page
 * shows it as literal text), and tables past the cell budget (their last rows show as text). `source` is the lesson file's text, for the lines.
 */
export function lessonMarkdownIssues(source: string, lesson: Lesson): LessonIssue[] {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: false });
  const issues: LessonIssue[] = [];
  for (const field of markdownFields(lesson)) {
    const node = doc.getIn(field.path, true);
    const at = lines.linePos(isNode(node) ? (node.range?.[0] ?? 0) : 0);
    const issue = (message: string) => issues.push({ line: at.line, column: at.col, field: fieldName(field.path), message });
    if (field.text.length > MARKDOWN_MAX_CHARS) {
      issue(
        `markdown-too-large: ${field.text.length} characters; a text is read as Markdown up to ${MARKDOWN_MAX_CHARS}, past that the page shows its start as plain text`,
      );
      continue;
    }
    const read = parseLessonMarkdown(field.text);
    for (const target of read.refusedLinks)
      issue(`markdown-link-refused: ${JSON.stringify(target)} is not an https: URL, so the page shows this link as plain text`);
    if (read.tablesCut)
      issue(
        `markdown-table-too-large: its tables ask for more than ${MARKDOWN_MAX_TABLE_CELLS} cells (rows × header columns); the rows past that are shown as text`,
      );
  }
  return issues;
}

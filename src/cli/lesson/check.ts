import { checkLessonPin, formatLessonIssues, lessonMarkdownIssues, parseLesson, splitLessonRef } from "../../lessons";
import { messageOf } from "../../platform";
import { readCommandLineOrReason } from "../args";
import { readLessonBytes } from "./read";

export const LESSON_CHECK_USAGE = `npx tab lesson check FILE[#sha256=HEX]... [--pin HEX]

  validates each lesson file against the lesson format (docs/lessons.md) and prints every
  issue as FILE:LINE:COL field: message. With #sha256=HEX after a file, or --pin HEX (one
  file only), the file's bytes must hash to that pin (lesson-pin-mismatch otherwise).
  exit 0 every file valid, 1 any file invalid or unreadable or its pin differs, 64 usage.`;

type Write = (line: string) => void;

interface CheckTarget {
  path: string;
  pin: string | null;
}

function readArgs(args: readonly string[]): { ok: true; targets: CheckTarget[] } | { ok: false; reason: string } {
  const targets: CheckTarget[] = [];
  const got = readCommandLineOrReason({ args: [...args], options: { pin: { type: "string" } }, allowPositionals: true });
  if (!got.ok) return got;
  const { read } = got;
  let pin: string | null = null;
  if (read.values.pin !== undefined) {
    if (!/^[0-9a-fA-F]{64}$/.test(read.values.pin)) return { ok: false, reason: "--pin takes 64 hex digits (a sha256)" };
    pin = read.values.pin.toLowerCase();
  }
  for (const arg of read.positionals) {
    const ref = splitLessonRef(arg);
    if (!ref.ok) return { ok: false, reason: `${arg}: ${ref.reason}` };
    targets.push({ path: ref.ref, pin: ref.pin });
  }
  if (targets.length === 0) return { ok: false, reason: "name at least one lesson file" };
  if (pin !== null) {
    if (targets.length !== 1) return { ok: false, reason: "--pin checks one file; write FILE#sha256=HEX for several" };
    if (targets[0]!.pin !== null && targets[0]!.pin !== pin) return { ok: false, reason: "the file's #sha256= and --pin differ" };
    targets[0]!.pin = pin;
  }
  return { ok: true, targets };
}

async function checkOne(target: CheckTarget, out: Write): Promise<boolean> {
  const read = await readLessonBytes(target.path);
  if (!read.ok) {
    out(`${target.path}:1:1 : ${read.reason}`);
    return false;
  }
  const bytes = read.bytes;
  let ok = true;
  if (target.pin !== null) {
    const pinned = await checkLessonPin(bytes, target.pin);
    if (!pinned.ok) {
      out(`${target.path}:1:1 : ${pinned.code}: ${pinned.reason}`);
      ok = false;
    }
  }
  const source = bytes.toString("utf8");
  const parsed = parseLesson(source);
  if (!parsed.ok) {
    for (const line of formatLessonIssues(parsed.issues, { file: target.path })) out(line);
    return false;
  }
  // Valid, but a reader would not see its Markdown as written: the author hears it here.
  const markdown = lessonMarkdownIssues(source, parsed.lesson);
  if (markdown.length > 0) {
    for (const line of formatLessonIssues(markdown, { file: target.path })) out(line);
    return false;
  }
  if (ok) {
    const steps = parsed.lesson.steps.length;
    out(`${target.path}: ok, "${parsed.lesson.title}", ${steps} step${steps === 1 ? "" : "s"}${target.pin ? ", pin verified" : ""}`);
  }
  return ok;
}

/** `npx tab lesson check`: every issue of every file, then the exit code. */
export async function runLessonCheck(
  args: readonly string[],
  out: Write = (l) => process.stdout.write(`${l}\n`),
  err: Write = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  const read = readArgs(args);
  if (!read.ok) {
    err(`tab lesson check: ${read.reason}\n\nusage: ${LESSON_CHECK_USAGE}`);
    return 64;
  }
  let ok = true;
  for (const target of read.targets) {
    // Whatever one file does to the reader is that file's issue; the files after it are still checked.
    let fileOk: boolean;
    try {
      fileOk = await checkOne(target, out);
    } catch (error) {
      out(`${target.path}:1:1 : lesson-invalid: cannot be read: ${messageOf(error)}`);
      fileOk = false;
    }
    if (!fileOk) ok = false;
  }
  return ok ? 0 : 1;
}

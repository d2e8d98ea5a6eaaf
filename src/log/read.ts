import type { z } from "zod";
import { messageOf } from "../platform";
import { DECISION_KINDS } from "./decision";
import { type EventKind, type LogEvent, NewEvent } from "./event";
import { Stamp } from "./events/common";

/**
 * Reading a log's JSON lines (what `GET /v0/log` serves, the page's Download log, a file someone
 * sends) as untrusted input, line by line, with the same schema the log is written with.
 *
 * A reader says which kinds it needs (a replay needs the proxy's decisions). Every other line,
 * of a kind this version knows or of one a newer version added, is skipped without being
 * validated and counted by kind, so the summary can say what was left out. Only a line the
 * reader needs and cannot read is refused, named by its line number and why.
 *
 * The text arrives in chunks (a file's stream, stdin) and is cut into lines here: memory is one
 * line (at most `maxLineChars`) plus what the reader keeps, whatever the size of the log.
 */

/**
 * The longest line read. The log bounds an event to about 16 KiB (src/log/bound.ts) and its
 * escapes at most sextuple that; a longer line is not one this log wrote.
 */
export const MAX_LOG_LINE_CHARS = 1024 * 1024;

export interface ReadLogLine {
  /** 1-based line number in the text. */
  line: number;
  event: LogEvent;
}

export interface LineError {
  line: number;
  message: string;
}

/** What a reader skipped: by kind, how many lines; `unknown` lists kinds this version does not know. */
export interface SkippedLines {
  lines: number;
  byKind: Map<string, number>;
  /** Kinds a newer version (or another writer) added, skipped unread. */
  unknownKinds: string[];
  /** Lines that were not an event at all (not JSON, no kind) and named none of the kinds needed. */
  notEvents: number;
}

export interface LogRead {
  /** The lines of the kinds needed, in order, each valid. */
  lines: ReadLogLine[];
  skipped: SkippedLines;
  /** Lines of a needed kind that could not be read: the read is refused when there is one. */
  errors: LineError[];
}

/**
 * What a translator makes of a line that is not one of this log's events (a line another
 * proxy wrote): an event of this log's, a kind to count as skipped, a refusal naming why a
 * decision line cannot be read, or null when it is not that format. The translator reads the
 * foreign line with its own schema (its boundary) and builds the event from what that schema
 * typed, so the event is not read a second time (a second schema per line was a third of a
 * 100,000-line read).
 */
export type TranslatedLine = { event: LogEvent } | { skip: string } | { refuse: string } | null;

export interface LogReadOptions {
  /** The kinds the reader uses; every other line is skipped and counted. */
  needs: readonly EventKind[];
  maxLineChars?: number;
  /** Reads lines of another format (another proxy's decision log) as this log's events. */
  translate?: (value: unknown, line: number) => TranslatedLine;
}

/** Refusals listed one by one; past this many, one more line counts the rest. */
const MAX_LISTED_ERRORS = 100;
/** Distinct skipped kinds counted one by one; the rest share one bucket. */
const MAX_COUNTED_KINDS = 256;
const OTHER_KINDS = "(other kinds)";

// Each kind's schema with the log's stamp: `LogEvent` for one kind (as one object, which zod checks ten times faster than the intersection).
const KIND_SCHEMAS: ReadonlyMap<string, z.ZodType<LogEvent>> = new Map(
  NewEvent.options.map((option) => [option.shape.kind.value, option.extend(Stamp.shape) as unknown as z.ZodType<LogEvent>]),
);

/** Every kind this version writes. */
export const EVENT_KINDS: readonly EventKind[] = NewEvent.options.map((option) => option.shape.kind.value);

/**
 * What a share link's replay reads (`verdictSequence`): every kind `decisionOf` reads (the
 * sequence is made of its decisions, whatever it then leaves out), and the scenario marks that
 * window them.
 */
export const SEQUENCE_KINDS: readonly EventKind[] = [...DECISION_KINDS, "scenario"];

/** Reads lines one at a time into a `LogRead`; `readLogText` and `readLogChunks` feed it. */
export interface LogReader {
  line(line: number, text: string): void;
  tooLong(line: number, length: number): void;
  result(): LogRead;
}

export function createLogReader(options: LogReadOptions): LogReader {
  const needs = new Set<string>(options.needs);
  const maxLineChars = options.maxLineChars ?? MAX_LOG_LINE_CHARS;
  const lines: ReadLogLine[] = [];
  const errors: LineError[] = [];
  const byKind = new Map<string, number>();
  let skippedLines = 0;
  let notEvents = 0;
  // A line that is not an event is refused only when it names a kind the reader needs: it may be one, damaged.
  const namesNeededKind = (text: string) => [...needs].some((kind) => text.includes(`"${kind}"`));
  const notAnEvent = (line: number, text: string, why: string) => {
    if (namesNeededKind(text)) refuse(line, why);
    else notEvents++;
  };
  const skip = (kind: string) => {
    skippedLines++;
    // Counted by kind up to a bound: a hostile log of a million made-up kinds costs one bucket.
    const key = byKind.has(kind) || byKind.size < MAX_COUNTED_KINDS ? kind.slice(0, 80) : OTHER_KINDS;
    byKind.set(key, (byKind.get(key) ?? 0) + 1);
  };
  let unlisted = 0;
  const refuse = (line: number, message: string) => {
    if (errors.length < MAX_LISTED_ERRORS) errors.push({ line, message });
    else unlisted++;
  };
  return {
    line(line, raw) {
      const text = raw.trim();
      if (text === "") return;
      if (text.length > maxLineChars) return this.tooLong(line, text.length);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return notAnEvent(line, text, `not JSON (${messageOf(error)})`);
      }
      const translated = hasKind(value) ? null : (options.translate?.(value, line) ?? null);
      if (translated && "refuse" in translated) return refuse(line, translated.refuse);
      if (translated && "skip" in translated) return skip(translated.skip);
      if (translated) {
        const event = translated.event;
        if (!needs.has(event.kind)) return skip(event.kind);
        lines.push({ line, event });
        return;
      }
      const kind = typeof value === "object" && value !== null && "kind" in value ? (value as { kind: unknown }).kind : undefined;
      if (typeof kind !== "string") return notAnEvent(line, text, "not a log event: it has no kind");
      if (!needs.has(kind)) return skip(kind);
      const parsed = KIND_SCHEMAS.get(kind)!.safeParse(value);
      if (parsed.success) lines.push({ line, event: parsed.data });
      else
        refuse(
          line,
          `not a valid ${kind} event: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(event)"}: ${i.message}`).join("; ")}`,
        );
    },
    tooLong(line, length) {
      refuse(line, `longer than ${maxLineChars} characters (${length}), so not a line this log writes; not read`);
    },
    result() {
      const unknownKinds = [...byKind.keys()].filter((kind) => !KIND_SCHEMAS.has(kind)).sort();
      const listed = unlisted > 0 ? [...errors, { line: errors.at(-1)!.line, message: `and ${unlisted} more lines not read` }] : errors;
      return { lines, errors: listed, skipped: { lines: skippedLines, byKind, unknownKinds, notEvents } };
    },
  };
}

const hasKind = (value: unknown): boolean =>
  typeof value === "object" && value !== null && typeof (value as { kind?: unknown }).kind === "string";

/** Reads a log held as one string (a pasted log, a test): line by line, as `readLogChunks` does. */
export function readLogText(text: string, options: LogReadOptions): LogRead {
  const reader = createLogReader(options);
  let start = 0;
  let line = 1;
  while (start <= text.length) {
    const end = text.indexOf("\n", start);
    const stop = end === -1 ? text.length : end;
    reader.line(line, text.slice(start, stop));
    if (end === -1) break;
    start = end + 1;
    line++;
  }
  return reader.result();
}

/**
 * Reads a log arriving as text chunks (a file's stream, stdin), one line at a time. A line
 * longer than `maxLineChars` is not held: the reader notes it and drops its characters up to the
 * next newline, so memory stays bounded whatever the input.
 */
export async function readLogChunks(chunks: AsyncIterable<string>, options: LogReadOptions): Promise<LogRead> {
  const reader = createLogReader(options);
  const maxLineChars = options.maxLineChars ?? MAX_LOG_LINE_CHARS;
  let pending = "";
  let line = 1;
  // How many characters of the current line were dropped (it was too long); -1 when none.
  let overflow = -1;
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      if (overflow >= 0) reader.tooLong(line, overflow + end - start);
      else if (pending.length + end - start > maxLineChars) reader.tooLong(line, pending.length + end - start);
      else reader.line(line, pending + chunk.slice(start, end));
      pending = "";
      overflow = -1;
      start = end + 1;
      line++;
    }
    const rest = chunk.length - start;
    if (overflow >= 0) overflow += rest;
    else if (pending.length + rest > maxLineChars) {
      overflow = pending.length + rest;
      pending = "";
    } else pending += chunk.slice(start);
  }
  if (overflow >= 0) reader.tooLong(line, overflow);
  else reader.line(line, pending);
  return reader.result();
}

/** The first five kinds, quoted and cut, and `…` for more. */
const listKinds = (kinds: readonly string[]) =>
  `${kinds
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 60)))
    .join(", ")}${kinds.length > 5 ? ", …" : ""}`;

/**
 * `312 lines of 9 kinds not needed for a replay (2 kinds this version does not know: a.b, c.d)`,
 * or "" when none. Unknown kinds that `knownElsewhere` names (another writer's, which its own
 * reader knows) are listed apart under its label, not as kinds this version does not know.
 */
export function describeSkippedLines(
  skipped: SkippedLines,
  purpose: string,
  knownElsewhere?: { label: string; is(kind: string): boolean },
): string {
  const parts: string[] = [];
  if (skipped.lines > 0) {
    const kinds = skipped.byKind.size;
    let text = `${skipped.lines} ${skipped.lines === 1 ? "line" : "lines"} of ${kinds} ${kinds === 1 ? "kind" : "kinds"} not needed for ${purpose}`;
    const elsewhere = knownElsewhere ? skipped.unknownKinds.filter((k) => knownElsewhere.is(k)) : [];
    const unknown = knownElsewhere ? skipped.unknownKinds.filter((k) => !knownElsewhere.is(k)) : skipped.unknownKinds;
    if (knownElsewhere && elsewhere.length > 0) text += ` (${knownElsewhere.label}: ${listKinds(elsewhere)})`;
    if (unknown.length > 0)
      text += ` (${unknown.length} ${unknown.length === 1 ? "kind" : "kinds"} this version does not know: ${listKinds(unknown)})`;
    parts.push(text);
  }
  if (skipped.notEvents > 0)
    parts.push(`${skipped.notEvents} ${skipped.notEvents === 1 ? "line that is not an event" : "lines that are not events"} skipped`);
  return parts.join("; ");
}

/** One line per error, `SOURCE: line N: why` (what the CLI prints and the page shows). */
export function describeLineErrors(errors: readonly LineError[], source = "log"): string {
  return errors.map((e) => `${source}: line ${e.line}: ${e.message}`).join("\n");
}

import { messageOf } from "../platform";
import { escapeJsonText } from "./display";
import { LogEvent } from "./event";
import type { EventLog } from "./log";

/**
 * One event as one JSON line (with its newline). Invisible and layout-changing characters
 * (bidi controls, zero-width characters, C1 controls, U+2028/U+2029) are written as JSON
 * `\uXXXX` escapes: the line parses back to the same event, and a terminal shows the escape.
 */
export function toJsonLine(event: LogEvent): string {
  return `${escapeJsonText(JSON.stringify(event))}\n`;
}

/** The log as JSON lines, one event a line, oldest first. For a whole log, prefer `logJsonLines`. */
export function toJsonLines(events: readonly LogEvent[]): string {
  let out = "";
  for (const event of events) out += toJsonLine(event);
  return out;
}

/**
 * The log's events held now, as JSON lines, one line at a time (what `GET /v0/log` serves).
 * The first line is a `log.dropped` line when the ring has dropped older events. The events
 * are taken when this is called; each line is built only when it is asked for, so the whole
 * log is never one string.
 */
export function logJsonLines(log: EventLog): IterableIterator<string> {
  const events = log.events();
  const dropped = log.dropped;
  function* lines(): Generator<string, void, undefined> {
    const first = events[0];
    if (dropped > 0 && first)
      yield toJsonLine({
        kind: "log.dropped",
        seq: first.seq - 1,
        time: first.time,
        dropped,
        message: `${dropped} older events were dropped by the log to stay within its bounds`,
      });
    for (const event of events) yield toJsonLine(event);
  }
  return lines();
}

/** How many bytes `logJsonLinesStream` puts in one chunk at most (unless one line is longer). */
export const JSON_LINES_CHUNK_BYTES = 64 * 1024;

/**
 * `logJsonLines` as a byte stream of UTF-8 chunks of about `chunkBytes`, produced as the
 * reader pulls: memory stays at about one chunk however large the log, and a reader that
 * stops pulling (a slow client) stops the work.
 */
export function logJsonLinesStream(log: EventLog, options: { chunkBytes?: number } = {}): ReadableStream<Uint8Array> {
  const chunkBytes = options.chunkBytes ?? JSON_LINES_CHUNK_BYTES;
  const lines = logJsonLines(log);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        let text = "";
        for (let next = lines.next(); !next.done; next = lines.next()) {
          text += next.value;
          if (text.length >= chunkBytes) break;
        }
        if (text === "") controller.close();
        else controller.enqueue(encoder.encode(text));
      },
      cancel() {
        lines.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

export interface ParsedJsonLines {
  events: LogEvent[];
  /** Lines that were not a valid event: line number (1-based) and why. */
  errors: { line: number; message: string }[];
}

/**
 * Parses JSON lines back into events, validating each with the schema: a log read from
 * outside (a share link, a file, another session) is untrusted input.
 */
export function parseJsonLines(text: string): ParsedJsonLines {
  const events: LogEvent[] = [];
  const errors: { line: number; message: string }[] = [];
  const lines = text.split("\n");
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      errors.push({ line: index + 1, message: `not JSON: ${messageOf(error)}` });
      return;
    }
    const parsed = LogEvent.safeParse(value);
    if (parsed.success) events.push(parsed.data);
    else
      errors.push({
        line: index + 1,
        message: parsed.error.issues.map((i) => `${i.path.join(".") || "(event)"}: ${i.message}`).join("; "),
      });
  });
  return { events, errors };
}

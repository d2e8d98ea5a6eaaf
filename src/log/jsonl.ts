import { LogEvent } from "./event";

/** The log as JSON lines, one event a line, oldest first (what `GET /v0/log` serves). */
export function toJsonLines(events: readonly LogEvent[]): string {
  let out = "";
  for (const event of events) out += `${JSON.stringify(event)}\n`;
  return out;
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
      errors.push({ line: index + 1, message: `not JSON: ${(error as Error).message}` });
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

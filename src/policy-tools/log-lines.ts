import {
  describeLineErrors,
  describeSkippedLines,
  type EventKind,
  type EventOf,
  type LineError,
  type LogRead,
  type ReadLogLine,
  readLogChunks,
  readLogText,
  type SkippedLines,
} from "../log";
import type { PolicyRequest } from "../policy";
import { smokescreenLine } from "./formats/smokescreen";

/**
 * Reading a `GET /v0/log` stream (JSON lines) for a replay or a draft: both need only the
 * proxy's decisions; a smokescreen `CANONICAL-PROXY-DECISION` line is read as one
 * (formats/smokescreen.ts), line by line, so a log may even mix them. Every other line, of a kind known or not, is skipped and counted; a
 * decision line that cannot be read refuses the whole read, named by its line (nothing is
 * re-decided or learned from half a log's decisions). The reading itself is src/log's, with
 * the schema the log is written with.
 */

export type LogLine = ReadLogLine;
export { describeLineErrors, type LineError };

/** What replay and learn read from a log. */
export const DECISION_KINDS: readonly EventKind[] = ["proxy.decision"];

export type DecisionRead = { ok: true; lines: LogLine[]; skipped: SkippedLines } | { ok: false; errors: LineError[] };

function decisionRead(read: LogRead): DecisionRead {
  return read.errors.length > 0 ? { ok: false, errors: read.errors } : { ok: true, lines: read.lines, skipped: read.skipped };
}

/** A log held as one string (a pasted log). */
export function readLogLines(text: string): DecisionRead {
  return decisionRead(readLogText(text, { needs: DECISION_KINDS, translate: smokescreenLine }));
}

/** A log arriving as text chunks (a file's stream, stdin), read line by line. */
export async function readLogLineChunks(chunks: AsyncIterable<string>, options: { maxLineChars?: number } = {}): Promise<DecisionRead> {
  return decisionRead(await readLogChunks(chunks, { needs: DECISION_KINDS, translate: smokescreenLine, ...options }));
}

/** `312 lines of 9 kinds not needed for a replay`, or "" (the CLI's and the page's summary line). */
export function describeSkipped(skipped: SkippedLines, purpose: "a replay" | "a draft"): string {
  return describeSkippedLines(skipped, purpose);
}

export type ProxyDecisionEvent = EventOf<"proxy.decision">;

/**
 * The request a proxy decision was about, as the policy sees it; null for a request to the
 * proxy's own endpoints (`/v0/…`), which the host allowlist does not decide.
 */
export function requestOfDecision(event: ProxyDecisionEvent): PolicyRequest | null {
  if (event.mode === "own" || event.mode === "vault") return null;
  if (event.mode === "connect") return { method: "CONNECT", authority: event.target };
  return { method: event.method, url: event.target };
}

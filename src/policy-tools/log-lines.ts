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
import { foreignLogReader, isForeignLogKind } from "./formats/logs";

/**
 * Reading a `GET /v0/log` stream (JSON lines) for a replay or a draft: both need only the
 * proxy's decisions; another proxy's decision line (smokescreen's `CANONICAL-PROXY-DECISION`,
 * gh-aw-firewall's audit.jsonl, OpenShell's OCSF network and HTTP activity: formats/logs.ts) is
 * read as one, line by line, so a log may even mix them. Every other line, of a kind known or not, is skipped and counted; a
 * decision line that cannot be read refuses the whole read, named by its line (nothing is
 * re-decided or learned from half a log's decisions). The reading itself is src/log's, with
 * the schema the log is written with.
 */

export type LogLine = ReadLogLine;
export { describeLineErrors, type LineError };

/** What replay and learn read from a log. */
export const DECISION_KINDS: readonly EventKind[] = ["proxy.decision"];

export type DecisionRead =
  | {
      ok: true;
      lines: LogLine[];
      skipped: SkippedLines;
      /**
       * The proxy whose log this is, by its policy format's name (`smokescreen`, `awf`,
       * `openshell`): the one most decisions came from, when that is not this project's own
       * log (null). A draft from it is written in that format.
       */
      format: string | null;
    }
  | { ok: false; errors: LineError[] };

function decisionRead(read: LogRead, decisions: ReadonlyMap<string, number>): DecisionRead {
  if (read.errors.length > 0) return { ok: false, errors: read.errors };
  let format: string | null = null;
  let most = read.lines.length - [...decisions.values()].reduce((a, b) => a + b, 0);
  for (const [name, count] of decisions)
    if (count > most) {
      format = name;
      most = count;
    }
  return { ok: true, lines: read.lines, skipped: read.skipped, format };
}

/** A log held as one string (a pasted log). */
export function readLogLines(text: string): DecisionRead {
  const foreign = foreignLogReader();
  return decisionRead(readLogText(text, { needs: DECISION_KINDS, translate: foreign.translate }), foreign.decisions);
}

/** A log arriving as text chunks (a file's stream, stdin), read line by line. */
export async function readLogLineChunks(chunks: AsyncIterable<string>, options: { maxLineChars?: number } = {}): Promise<DecisionRead> {
  const foreign = foreignLogReader();
  return decisionRead(await readLogChunks(chunks, { needs: DECISION_KINDS, translate: foreign.translate, ...options }), foreign.decisions);
}

/** `312 lines of 9 kinds not needed for a replay`, or "" (the CLI's and the page's summary line). */
export function describeSkipped(skipped: SkippedLines, purpose: "a replay" | "a draft"): string {
  // Another proxy's lines are known to its translator, not "a kind this version does not know": named apart.
  return describeSkippedLines(skipped, purpose, { label: "another proxy's", is: isForeignLogKind });
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

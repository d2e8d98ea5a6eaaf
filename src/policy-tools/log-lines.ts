import { type EventOf, LogEvent, NewEvent } from "../log";
import type { PolicyRequest } from "../policy";

/**
 * Reading a `GET /v0/log` stream (JSON lines) as untrusted input: every line must be JSON and a
 * known event, or the whole read fails with an error naming each bad line. Nothing is half-read.
 */

export interface LogLine {
  /** 1-based line number in the text. */
  line: number;
  event: LogEvent;
}

export interface LineError {
  line: number;
  message: string;
}

export type LogRead = { ok: true; lines: LogLine[] } | { ok: false; errors: LineError[] };

const KNOWN_KINDS: ReadonlySet<string> = new Set(NewEvent.options.map((option) => option.shape.kind.value));

export function readLogLines(text: string): LogRead {
  const lines: LogLine[] = [];
  const errors: LineError[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === "") return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      errors.push({ line, message: `not JSON (${(error as Error).message})` });
      return;
    }
    const kind = typeof value === "object" && value !== null && "kind" in value ? (value as { kind: unknown }).kind : undefined;
    if (typeof kind !== "string") {
      errors.push({ line, message: "not a log event: it has no kind" });
      return;
    }
    if (!KNOWN_KINDS.has(kind)) {
      errors.push({ line, message: `unknown kind ${JSON.stringify(kind.slice(0, 60))}` });
      return;
    }
    const parsed = LogEvent.safeParse(value);
    if (parsed.success) lines.push({ line, event: parsed.data });
    else
      errors.push({
        line,
        message: `not a valid ${kind} event: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(event)"}: ${i.message}`).join("; ")}`,
      });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, lines };
}

/** One line per error, `line N: why` (what the CLI prints and the page shows). */
export function describeLineErrors(errors: readonly LineError[], source = "log"): string {
  return errors.map((e) => `${source}: line ${e.line}: ${e.message}`).join("\n");
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

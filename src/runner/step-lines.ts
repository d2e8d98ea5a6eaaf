import type { NewEvent } from "../log";

/**
 * The runner's console lines (guest/runner/README.md): `tab-run: step=… key=value … -- text`
 * and `tab-agent: step=N verb=… outcome=…`; `tab-run: | …` quotes output. Values carry no
 * spaces (percent-encoded by the scripts); free text follows ` -- `.
 */
export interface RunnerLine {
  source: "tab-run" | "tab-agent";
  fields: Record<string, string>;
  /** Free text after ` -- ` (already redacted by the guest; the page redacts again). */
  text: string | null;
  /** A quoted output line (`| …`), or null for a step line. */
  quote: string | null;
  line: string;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function parseRunnerLine(raw: string): RunnerLine | null {
  const line = raw
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\r/g, "")
    .trim();
  const m = /^(tab-run|tab-agent): (.*)$/.exec(line);
  if (!m) return null;
  const source = m[1] as RunnerLine["source"];
  const rest = m[2] ?? "";
  if (rest.startsWith("|")) return { source, fields: {}, text: null, quote: rest.slice(2), line };
  const cut = rest.indexOf(" -- ");
  const head = cut >= 0 ? rest.slice(0, cut) : rest;
  const text = cut >= 0 ? rest.slice(cut + 4) : null;
  const fields: Record<string, string> = {};
  for (const f of head.matchAll(/(?:^|\s)([a-z_]+)=(\S*)/g)) fields[f[1]!] = decode(f[2] ?? "");
  if (Object.keys(fields).length === 0 && text === null) return null;
  return { source, fields, text, quote: null, line };
}

/** The run's last line: `tab-run: outcome=ok|failed stage=… status=N run=ID`. */
export function runOutcome(line: RunnerLine): { outcome: "ok" | "failed"; stage: string; status: number; run: string } | null {
  const f = line.fields;
  if (line.source !== "tab-run" || f.step !== undefined || (f.outcome !== "ok" && f.outcome !== "failed")) return null;
  return { outcome: f.outcome, stage: f.stage ?? "", status: Number(f.status ?? 1), run: f.run ?? "" };
}

const WARN_RESULTS = new Set(["failed", "refused", "timeout", "denied"]);

/** How loud a line is on the log: a failed run is an error, a refusal or a difference a warning. */
export function lineLevel(line: RunnerLine): "info" | "warning" | "error" {
  const f = line.fields;
  if (runOutcome(line)?.outcome === "failed") return "error";
  if (WARN_RESULTS.has(f.result ?? "") || WARN_RESULTS.has(f.outcome ?? "") || f.outcome === "unknown") return "warning";
  if (f.step === "discard" || f.identical === "no") return "warning";
  return "info";
}

/**
 * A step line as a `runner.step` event for the log (quotes stay in the terminal). `redactText`
 * is the page's `redact` with the host environment, applied on top of the guest's own redaction.
 */
export function runnerLineEvent(line: RunnerLine, run: string, redactText: (text: string) => string): NewEvent | null {
  if (line.quote !== null) return null;
  const f = line.fields;
  const body = line.line.slice(line.source.length + 2);
  // tab-agent numbers its steps and names the verb; tab-run names the step; the last line has none.
  // A line without a step field leads with a bare word (`start …`, `finished …`).
  const lead = /^([a-z]+)(?:\s|$)/.exec(body)?.[1];
  const step =
    line.source === "tab-agent" ? (f.verb ?? lead ?? f.step ?? "agent") : (f.step ?? (runOutcome(line) ? "outcome" : (lead ?? "note")));
  return {
    kind: "runner.step",
    run,
    source: line.source,
    step,
    outcome: f.outcome ?? f.result ?? null,
    level: lineLevel(line),
    message: redactText(body),
  };
}

import { eventsInWindows, type LogEvent, type ScenarioWindow, verdictSequence } from "../../../log";

/**
 * What a share link will not replay: a link carries the verdict table's rows and agent runs
 * that ran (their windows on the log), never a command typed by hand or a lesson's step. The
 * sender is told which verdicts stay behind, so a receiver's "same verdicts" means what it says.
 */
export interface LeftOut {
  /** Verdicts outside every replayed window. */
  verdicts: number;
  /** A few of the requests behind them (`GET https://…  host-not-allowed`), oldest first. */
  examples: string[];
}

const EXAMPLES = 3;

export function leftOutOfLink(events: readonly LogEvent[], windows: readonly Pick<ScenarioWindow, "fromSeq" | "toSeq">[]): LeftOut {
  const replayed = new Set(eventsInWindows(events, windows).map((e) => e.seq));
  const outside = events.filter((e) => !replayed.has(e.seq));
  const examples: string[] = [];
  for (const e of outside) {
    if (examples.length === EXAMPLES) break;
    if (e.kind === "proxy.decision" && e.mode !== "own") examples.push(`${e.method} ${e.target}  ${e.wouldRefuse ?? e.code}`);
  }
  return { verdicts: verdictSequence(outside).length, examples };
}

/** One line under the link, or "" when everything the session decided is in it. */
export function describeLeftOut(left: LeftOut): string {
  if (left.verdicts === 0) return "";
  const more = left.examples.length > 0 ? `: ${left.examples.join("; ")}${left.verdicts > left.examples.length ? "; …" : ""}` : "";
  return `Not in this link: ${left.verdicts} ${left.verdicts === 1 ? "verdict" : "verdicts"} from commands typed by hand or lesson steps (a link replays only the table's rows and agent runs)${more}`;
}

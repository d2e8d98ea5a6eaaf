import {
  createScenarioWindowTracker,
  type EventLog,
  eventsInWindows,
  type ScenarioWindow,
  type SequenceStep,
  verdictSequence,
} from "../../../log";

/** The act a share link uses for "run the harness's agent" (not a scenario id). */
export const AGENT_ACT = "agent";

/** What this page ran that a share link replays: the acts in order, their windows, their verdicts. */
export interface SharedRuns {
  /** The scenario ids (and AGENT_ACT) in the order they ran. */
  readonly acts: readonly string[];
  readonly windows: readonly ScenarioWindow[];
  /** The verdict sequence the acts produced, read from their windows on the log. */
  sequence(): SequenceStep[];
}

/** Follows the log for the verdict table's rows and agent runs that ended: what a link carries. */
export function followSharedRuns(log: EventLog): SharedRuns {
  const acts: string[] = [];
  /** Verdicts produced while scenarios ran: their windows on the log. */
  const windows: ScenarioWindow[] = [];
  // An agent run logs its start while it may still wait for a row: windows pair by id.
  const tracker = createScenarioWindowTracker();
  log.subscribe((e) => {
    const window = tracker.feed(e);
    // A row a person stopped with Ctrl+C (or cancelled) is not what the row produces: the link
    // leaves it out, so a replay never types it and the sequence is only the rows that ran.
    if (!window || window.phase === "interrupted" || window.phase === "cancelled") return;
    // A lesson's commands belong to the lesson, not to the verdict table a link replays.
    if (window.act === "lesson-step") return;
    // An agent run replays as the act "agent": the receiver runs the same harness's agent in its own guest.
    acts.push(window.act === "agent-run" ? AGENT_ACT : window.id);
    windows.push(window);
  });
  return { acts, windows, sequence: () => verdictSequence(eventsInWindows(log.events(), windows)) };
}

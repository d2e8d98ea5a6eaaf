import type { EventOf, LogEvent } from "./event";
import type { ScenarioAct } from "./events/session";

/** One console task that ended, as the log holds it: its events lie strictly between `fromSeq` and `toSeq`. */
export interface ScenarioWindow {
  id: string;
  act: ScenarioAct;
  /** How it ended: the end event's phase. */
  phase: Exclude<EventOf<"scenario">["phase"], "start">;
  /** The seq of its start event. */
  fromSeq: number;
  /** The seq of its end event. */
  toSeq: number;
}

/**
 * Pairs each task's start with its end, in the order they end, one event at a time (the share
 * link keeps the windows of a whole session as events arrive). An end whose start is not on
 * the log (a task cancelled before it started) opens no window.
 */
export interface ScenarioWindowTracker {
  /** The window the event closes, if it closes one. */
  feed(event: LogEvent): ScenarioWindow | null;
  /** Whether a task has started and not ended yet. */
  readonly running: boolean;
}

export function createScenarioWindowTracker(): ScenarioWindowTracker {
  const open = new Map<string, number>();
  return {
    feed(e) {
      if (e.kind !== "scenario") return null;
      if (e.phase === "start") {
        open.set(e.id, e.seq);
        return null;
      }
      const fromSeq = open.get(e.id);
      if (fromSeq === undefined) return null;
      open.delete(e.id);
      return { id: e.id, act: e.act, phase: e.phase, fromSeq, toSeq: e.seq };
    },
    get running() {
      return open.size > 0;
    },
  };
}

/** The windows of every task that started and ended in `events`, in the order they ended. */
export function scenarioWindows(events: readonly LogEvent[]): ScenarioWindow[] {
  const tracker = createScenarioWindowTracker();
  const out: ScenarioWindow[] = [];
  for (const e of events) {
    const window = tracker.feed(e);
    if (window) out.push(window);
  }
  return out;
}

/** The events inside any of the windows (their start and end events excluded). */
export function eventsInWindows(events: readonly LogEvent[], windows: readonly Pick<ScenarioWindow, "fromSeq" | "toSeq">[]): LogEvent[] {
  return events.filter((e) => windows.some((w) => e.seq > w.fromSeq && e.seq < w.toSeq));
}

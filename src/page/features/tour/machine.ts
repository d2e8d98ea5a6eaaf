import { createScenarioWindowTracker, type LogEvent } from "../../../log";
import { judge } from "./judge";
import { advance, TOUR_START, type TourProgress } from "./progress";
import type { TourStep } from "./steps";

/**
 * What the page should say and log after an event. Phases are those of the `tour.step` event,
 * plus `aside`: shown to the trainee, not logged (nothing happened to the tour).
 */
export interface TourUpdate {
  phase: "start" | "passed" | "wrong" | "finished" | "restart" | "aside";
  step: string;
  message: string;
}

export interface TourMachine {
  readonly progress: TourProgress;
  /** The step being worked on; null once the tour is finished. */
  readonly current: TourStep | null;
  /** Judges one log event against the current step and advances on a pass. */
  feed(event: LogEvent): TourUpdate[];
  /** Announces the current step (a first start, or a resume after a reload). */
  announce(resumed: boolean): TourUpdate[];
  restart(): TourUpdate[];
}

/**
 * The tour's progress as a pure state machine over log events. Outcomes produced while the
 * scenario bar is running a row are not the trainee's own typing, so they do not count.
 */
export function createTourMachine(steps: readonly TourStep[], initial: TourProgress = TOUR_START): TourMachine {
  if (steps.length === 0) throw new RangeError("a tour needs at least one step");
  let progress = initial;
  // The console tasks on the log (scenario rows, agent runs): while one runs, outcomes are not the trainee's.
  let tasks = createScenarioWindowTracker();
  const current = () => (progress.finished ? null : (steps[progress.stepIndex] ?? null));
  const startOf = (step: TourStep, resumed: boolean): TourUpdate => ({
    phase: "start",
    step: step.id,
    message: `${resumed ? "Resumed at" : "Now"} step ${steps.indexOf(step) + 1} of ${steps.length}: ${step.title}. Type: ${step.command}`,
  });
  const finished = (): TourUpdate => ({
    phase: "finished",
    step: steps[steps.length - 1]?.id ?? "",
    message: `Tour finished: ${steps.map((s) => `${s.title} (verdict table row ${s.seedRow}, by ${s.expect.by})`).join("; ")}.`,
  });

  return {
    get progress() {
      return progress;
    },
    get current() {
      return current();
    },
    feed(event) {
      // A lesson's commands are not the tour's business: the tour judges them as typed, as before.
      if (event.kind === "scenario" && event.act === "lesson-step") return [];
      if (event.kind === "scenario") {
        tasks.feed(event);
        const step = current();
        if (event.phase === "start") {
          return step
            ? [
                {
                  phase: "aside",
                  step: step.id,
                  message: `The scenario bar is running "${event.id}": the tour counts only commands typed into the terminal (by you, or by "Type it for me").`,
                },
              ]
            : [];
        }
        return [];
      }
      const step = current();
      if (!step || tasks.running) return [];
      const verdict = judge(step, event);
      if (verdict.outcome === "ignore") return [];
      if (verdict.outcome === "wrong") return [{ phase: "wrong", step: step.id, message: verdict.reason }];
      progress = advance(progress, steps);
      const next = current();
      return [{ phase: "passed", step: step.id, message: verdict.reason }, next ? startOf(next, false) : finished()];
    },
    announce(resumed) {
      const step = current();
      return [step ? startOf(step, resumed) : finished()];
    },
    restart() {
      progress = TOUR_START;
      tasks = createScenarioWindowTracker();
      const first = steps[0] as TourStep;
      return [{ phase: "restart", step: first.id, message: "Tour restarted at step 1." }, startOf(first, false)];
    },
  };
}

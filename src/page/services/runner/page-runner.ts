import type { EventLog } from "../../../log";
import { createEmitter, messageOf } from "../../../platform";
import { type RunnerDeps, type RunOptions, type RunResult, runAgent } from "../../../runner";
import { RUNNER_SCRIPTS } from "./scripts";

/** Where the page's runner is: what the Run agent buttons and status show. */
export type RunnerState =
  | { phase: "running"; harness: string }
  /** The run waits for the shell (a person's command, a scenario); `cancel()` gives up before it types. */
  | { phase: "waiting"; harness: string }
  | { phase: "done"; result: RunResult }
  | { phase: "failed"; message: string };

/**
 * The page's one agent runner, built once by the page's services: the Run agent buttons, the
 * Model section and share links' replays all call this `run`, typed, so the compiler sees
 * who depends on it. One run at a time.
 */
export interface PageRunner {
  run(options?: RunOptions): Promise<RunResult>;
  /** Cancels the run in progress if it still waits for the shell (after that, only Ctrl+C stops it). */
  cancel(): void;
  /** Is told when a run starts, waits, and how it ended. */
  subscribe(listener: (state: RunnerState) => void): () => void;
}

/** The runner's needs; the runner scripts are the page's bundled ones (./scripts.ts). */
export interface PageRunnerDeps extends Omit<RunnerDeps, "scripts"> {
  log: EventLog;
  /** What to run when the caller does not say: the harness field, the link's, or the demo. */
  defaultHarness(): string;
}

export function createPageRunner(deps: PageRunnerDeps): PageRunner {
  const listeners = createEmitter<RunnerState>();
  const tell = (state: RunnerState) => {
    listeners.emit(state);
  };
  let busy: Promise<RunResult> | null = null;
  let controller: AbortController | null = null;

  return {
    run(options = {}) {
      if (busy) return Promise.reject(new Error("a run is already in progress"));
      const harness = options.harness ?? deps.defaultHarness();
      tell({ phase: "running", harness });
      const own = new AbortController();
      controller = own;
      const onWaiting = (waiting: boolean) => {
        options.onWaiting?.(waiting);
        tell({ phase: waiting ? "waiting" : "running", harness });
      };
      busy = runAgent({ ...deps, scripts: RUNNER_SCRIPTS }, { ...options, harness, signal: options.signal ?? own.signal, onWaiting })
        .then((result) => {
          tell({ phase: "done", result });
          return result;
        })
        .catch((error: unknown) => {
          const message = messageOf(error);
          deps.log.append({
            kind: "runner.step",
            run: "",
            source: "runner",
            step: "run",
            outcome: "failed",
            level: "error",
            message: `run failed: ${message}`,
          });
          tell({ phase: "failed", message });
          throw error;
        })
        .finally(() => {
          busy = null;
          if (controller === own) controller = null;
        });
      return busy;
    },
    cancel() {
      controller?.abort(new Error("cancelled"));
    },
    subscribe: (listener) => listeners.subscribe(listener),
  };
}

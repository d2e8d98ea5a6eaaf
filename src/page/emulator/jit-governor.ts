/**
 * When v86's JIT may compile. v86 turns a hot page of guest code into a WebAssembly module,
 * which the browser compiles (and later recompiles with its optimising tier) on its own
 * threads. That pays for a loop that runs for seconds, and costs more than it gains for what
 * the playground mostly runs: short processes (curl, ls, the demos) whose code is cold again
 * in the next process. Measured on the 2-core test machine (docs/performance.md, "The
 * emulator's JIT"): with the JIT always on, `curl https://…` took 0.3–1.7 s against a 200 ms
 * upstream, because the browser's compiler threads starved the page's own `fetch()`; with it
 * off, 0.42–0.45 s every time, and `ls -la /usr/bin` 0.24 s against 0.5–0.64 s. A long loop
 * is 3–6× slower without it (sha256 of 8 MB: 9 s against 1.5 s).
 *
 * So the JIT is on only under sustained load: after `enableAfter` windows in a row in which
 * the guest ran at least `busyInstructions` (JIT_WINDOW_MS each), and off again after
 * `disableAfter` quiet ones.
 * Turning it off stops new compiles; what it compiled keeps running (jit-watch.ts).
 */
export interface JitGovernorOptions {
  /** Guest instructions in one window that count as busy (an idle guest runs ~30 thousand). */
  busyInstructions: number;
  /** Busy windows in a row before the JIT is turned on. */
  enableAfter: number;
  /** Quiet windows in a row before it is turned off again. */
  disableAfter: number;
}

/**
 * Windows of 250 ms. Busy is 8 M instructions in one (32 M a second): v86's interpreter runs
 * 45–80 M a second on the test machine, so a window of solid work has 11–20 M, and an idle
 * guest ~30 thousand. A whole `curl https://…` is ~18 M, so it fills at most two windows; the
 * JIT comes on after 1.5 s of solid work and goes off after a second of quiet.
 */
export const JIT_WINDOW_MS = 250;
export const DEFAULT_JIT_GOVERNOR: JitGovernorOptions = { busyInstructions: 8_000_000, enableAfter: 6, disableAfter: 4 };

/** What the page can ask of the emulator's JIT (for tests and benchmarks). */
export interface JitState {
  enabled: boolean;
  /** How many times the governor turned it on since the guest started. */
  turnedOn: number;
}

export interface JitGovernor {
  /** Whether the JIT should be on now. */
  readonly enabled: boolean;
  /** Reports one window's instruction count; returns the change to make, if any. */
  observe(instructions: number): "enable" | "disable" | null;
}

export function createJitGovernor(options: JitGovernorOptions = DEFAULT_JIT_GOVERNOR, enabled = false): JitGovernor {
  let busyRun = 0;
  let quietRun = 0;
  return {
    get enabled() {
      return enabled;
    },
    observe(instructions) {
      if (instructions >= options.busyInstructions) {
        busyRun++;
        quietRun = 0;
      } else {
        quietRun++;
        busyRun = 0;
      }
      if (!enabled && busyRun >= options.enableAfter) {
        enabled = true;
        return "enable";
      }
      if (enabled && quietRun >= options.disableAfter) {
        enabled = false;
        return "disable";
      }
      return null;
    },
  };
}

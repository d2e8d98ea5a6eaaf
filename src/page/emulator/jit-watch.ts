import type { V86 } from "v86";
import { systemTimers, type Timers } from "../../platform";
import { createJitGovernor, JIT_WINDOW_MS, type JitState } from "./jit-governor";
import { sleepToNextDeadline, type V86Loop } from "./machine-loop";

/** v86's JIT setting 0: JIT_DISABLED. */
const JIT_DISABLED = 0;

/**
 * Instructions since the governor's count fell asleep that wake it. v86's loop yields at least
 * every millisecond of guest work, so the count wakes within ~2 M instructions of the guest
 * getting busy (a busy window is 8 M): a sustained load is counted from its first window.
 */
const WAKE_INSTRUCTIONS = 2_000_000;

interface V86WithJit {
  v86?: V86Loop & {
    cpu: V86Loop["cpu"] & {
      /** The CPU's wasm exports: `set_jit_config(0, 1)` stops the JIT compiling (v86 uses it for its `disable_jit` option). */
      wm: { exports: { set_jit_config(index: number, value: number): void } };
    };
  };
}

/** The governor at work on one machine (jit-governor.ts decides; this counts and applies). */
export interface JitWatch {
  state(): JitState;
  /** Counts again (a resumed machine). */
  start(): void;
  /** Stops counting (a paused or destroyed machine). */
  stop(): void;
}

/**
 * Lets the JIT compile only under sustained load (jit-governor.ts): on from the start for a
 * boot, which is seconds of work; off for a restored guest, which waits at a prompt. Counts
 * the guest's instructions every JIT_WINDOW_MS, and makes a halted guest's loop sleep to its
 * next timer (machine-loop.ts). Returns null for another v86 than the one pinned (its JIT and
 * loop are left as they are).
 *
 * The count sleeps while the guest is quiet and the JIT is off (a quiet window then changes
 * nothing), so an idle guest's worker is not woken 4 times a second for it; the loop wakes it
 * once the guest has run WAKE_INSTRUCTIONS since.
 */
export function watchJit(machine: Pick<V86, "get_instruction_counter">, boot: boolean, timers: Timers = systemTimers): JitWatch | null {
  const loop = (machine as unknown as V86WithJit).v86;
  if (!loop?.cpu?.wm) return null;
  const { cpu } = loop;
  // Safe to flip at run time: in v86's jit.rs the switch gates only the hotness count that
  // starts a compile. Code compiled while it was on keeps running, and a guest write to its
  // pages still invalidates it (the dirty-page tracking does not look at the switch), so
  // nothing stale can run. Kept, that code spares V8 compiling it again at the next "on".
  const apply = (on: boolean) => cpu.wm.exports.set_jit_config(JIT_DISABLED, on ? 0 : 1);
  const governor = createJitGovernor(undefined, boot);
  let turnedOn = 0;
  /** The armed window's timer, or undefined while the count sleeps or is stopped. */
  let counting: unknown;
  /** The instruction count where the count fell asleep, or null while it counts or is stopped. */
  let asleepAt: number | null = null;

  const count = () => {
    if (counting !== undefined) return;
    asleepAt = null;
    let last = machine.get_instruction_counter();
    const window = () => {
      const now = machine.get_instruction_counter();
      const ran = (now - last) >>> 0;
      last = now;
      const change = governor.observe(ran);
      if (change === "enable") turnedOn++;
      if (change) apply(change === "enable");
      if (ran < WAKE_INSTRUCTIONS && maySleep && !governor.enabled) {
        counting = undefined;
        asleepAt = now;
      } else counting = timers.setTimeout(window, JIT_WINDOW_MS);
    };
    counting = timers.setTimeout(window, JIT_WINDOW_MS);
  };
  const maySleep = sleepToNextDeadline(loop, () => {
    if (asleepAt !== null && (machine.get_instruction_counter() - asleepAt) >>> 0 >= WAKE_INSTRUCTIONS) count();
  });
  apply(governor.enabled);
  count();
  return {
    state: () => ({ enabled: governor.enabled, turnedOn }),
    start: count,
    stop() {
      asleepAt = null;
      timers.clearTimeout(counting);
      counting = undefined;
    },
  };
}

import { describe, expect, it } from "vitest";
import { fakeTimers } from "../../platform/testing/fake-timers";
import { JIT_WINDOW_MS } from "./jit-governor";
import { watchJit } from "./jit-watch";
import { V86_NOTHING_DUE_MS } from "./machine-loop";

/** A machine shaped like v86's: an instruction counter the test moves, a loop that records its slices. */
function fakeMachine() {
  const jit: number[] = [];
  const machine = {
    instructions: 0,
    get_instruction_counter: () => machine.instructions,
    v86: {
      yield: (_delay: number, _tick: number) => undefined,
      stop: () => undefined,
      cpu: {
        in_hlt: Uint8Array.of(1),
        run_hardware_timers: () => V86_NOTHING_DUE_MS,
        apic_timer: () => V86_NOTHING_DUE_MS,
        stop_idling: () => undefined,
        devices: { pit: { counter_enabled: Uint8Array.of(0) }, rtc: {}, acpi: { pm1_enable: 0 } },
        wm: { exports: { set_jit_config: (_index: number, disabled: number) => jit.push(disabled) } },
      },
    },
    /** One slice of the loop after the guest ran `n` instructions. */
    run(n: number) {
      machine.instructions += n;
      machine.v86.yield(0, 1);
    },
  };
  return { machine, jit };
}

describe("the JIT's count of the guest's instructions", () => {
  it("falls asleep after a quiet window with the JIT off, so an idle guest arms no timer for it", async () => {
    const timers = fakeTimers();
    const { machine, jit } = fakeMachine();
    watchJit(machine, false, timers);
    expect(jit).toEqual([1]); // off for a restored guest
    expect(timers.armed()).toEqual([JIT_WINDOW_MS]);
    machine.run(30_000);
    await timers.advance(JIT_WINDOW_MS);
    expect(timers.armed()).toEqual([]);
  });

  it("is woken by the loop once the guest works, and sustained work turns the JIT on", async () => {
    const timers = fakeTimers();
    const { machine, jit } = fakeMachine();
    const watch = watchJit(machine, false, timers);
    await timers.advance(JIT_WINDOW_MS);
    expect(timers.armed()).toEqual([]);
    machine.run(1_000_000);
    expect(timers.armed()).toEqual([]); // not yet enough to matter
    machine.run(1_000_000);
    expect(timers.armed()).toEqual([JIT_WINDOW_MS]);
    for (let i = 0; i < 6; i++) {
      machine.run(12_000_000);
      await timers.advance(JIT_WINDOW_MS);
    }
    expect(watch?.state()).toEqual({ enabled: true, turnedOn: 1 });
    expect(jit).toEqual([1, 0]);
    // On, the count keeps counting while quiet until the governor turns it off again.
    for (let i = 0; i < 4; i++) await timers.advance(JIT_WINDOW_MS);
    expect(watch?.state()).toEqual({ enabled: false, turnedOn: 1 });
    expect(jit).toEqual([1, 0, 1]);
  });

  it("stops for a paused machine (the loop does not wake it), and counts again when started", async () => {
    const timers = fakeTimers();
    const { machine } = fakeMachine();
    const watch = watchJit(machine, false, timers);
    watch?.stop();
    expect(timers.armed()).toEqual([]);
    machine.run(5_000_000);
    expect(timers.armed()).toEqual([]);
    watch?.start();
    expect(timers.armed()).toEqual([JIT_WINDOW_MS]);
  });

  it("leaves another v86 as it is", () => {
    expect(watchJit({ get_instruction_counter: () => 0 }, false, fakeTimers())).toBeNull();
  });
});

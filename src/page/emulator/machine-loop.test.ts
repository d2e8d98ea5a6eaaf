import { describe, expect, it } from "vitest";
import {
  HALTED_SLEEP_MAX_MS,
  HALTED_SLEEP_MIN_MS,
  type HaltingCpu,
  sleepToNextDeadline,
  untilNextDeadline,
  V86_NOTHING_DUE_MS,
  type V86Loop,
} from "./machine-loop";

/** A halted CPU whose devices have nothing due, as v86 0.5 lays them out. */
function haltedCpu(apicLeft = V86_NOTHING_DUE_MS): HaltingCpu & { stop_idling(): void } {
  return {
    in_hlt: Uint8Array.of(1),
    run_hardware_timers: () => V86_NOTHING_DUE_MS,
    apic_timer: () => apicLeft,
    stop_idling: () => undefined,
    devices: {
      pit: { counter_enabled: Uint8Array.of(0, 0, 0) },
      rtc: { periodic_interrupt: false, next_interrupt: 0, next_interrupt_alarm: 0, update_interrupt: false, update_interrupt_time: 0 },
      acpi: { pm1_enable: 0 },
    },
  };
}

describe("a halted guest's sleep", () => {
  it("lasts until the local APIC timer's deadline, past v86's 100 ms", () => {
    expect(untilNextDeadline(haltedCpu(480), true, 0, 0)).toBe(480);
  });

  it("takes a stopped APIC timer (v86's 100) as no deadline, and then lasts the longest sleep", () => {
    expect(untilNextDeadline(haltedCpu(), true, 0, 0)).toBe(HALTED_SLEEP_MAX_MS);
  });

  it("ends at the CMOS clock's next interrupt, read on the wall clock", () => {
    const cpu = haltedCpu(900);
    cpu.devices = { ...cpu.devices, rtc: { periodic_interrupt: true, next_interrupt: 10_250 } };
    expect(untilNextDeadline(cpu, true, 0, 10_000)).toBe(250);
    cpu.devices = { ...cpu.devices, rtc: { update_interrupt: true, update_interrupt_time: 10_600, next_interrupt_alarm: 10_300 } };
    expect(untilNextDeadline(cpu, true, 0, 10_000)).toBe(300);
  });

  it("keeps v86's own answer while the PIT counts or ACPI's timer interrupt is on", () => {
    const pit = haltedCpu(900);
    pit.devices = { ...pit.devices, pit: { counter_enabled: Uint8Array.of(1, 0, 0) } };
    expect(untilNextDeadline(pit, true, 0, 0)).toBe(V86_NOTHING_DUE_MS);
    const acpi = haltedCpu(900);
    acpi.devices = { ...acpi.devices, acpi: { pm1_enable: 1 } };
    expect(untilNextDeadline(acpi, true, 0, 0)).toBe(V86_NOTHING_DUE_MS);
  });

  it("keeps v86's own answer for a v86 whose devices it cannot read", () => {
    const other = haltedCpu(900);
    other.devices = {};
    expect(untilNextDeadline(other, true, 0, 0)).toBe(V86_NOTHING_DUE_MS);
  });

  it("is never shorter than the shortest sleep, even with a deadline already passed", () => {
    const cpu = haltedCpu(0.2);
    expect(untilNextDeadline(cpu, true, 0, 0)).toBe(HALTED_SLEEP_MIN_MS);
  });
});

/** A loop shaped like v86's: `yield` records each sleep asked for. */
function fakeLoop(cpu: ReturnType<typeof haltedCpu>) {
  const sleeps: number[] = [];
  const asked: string[] = [];
  const loop: V86Loop = {
    cpu,
    yield: (delay) => sleeps.push(delay),
    stop: () => asked.push("stop"),
  };
  return { loop, sleeps, asked };
}

describe("the machine's loop", () => {
  it("lets a halted guest sleep to its APIC deadline, and only while halted", () => {
    const cpu = haltedCpu(700);
    sleepToNextDeadline(fakeLoop(cpu).loop);
    expect(cpu.run_hardware_timers(true, 0)).toBe(700);
    cpu.in_hlt = Uint8Array.of(0);
    expect(cpu.run_hardware_timers(true, 0)).toBe(V86_NOTHING_DUE_MS);
  });

  it("keeps v86's answer when a device has something due within its cap", () => {
    const cpu = haltedCpu(700);
    cpu.run_hardware_timers = () => 12;
    sleepToNextDeadline(fakeLoop(cpu).loop);
    expect(cpu.run_hardware_timers(true, 0)).toBe(12);
  });

  it("never lets a halted guest's loop spin on immediate slices, and leaves a computing guest's alone", () => {
    const cpu = haltedCpu();
    const { loop, sleeps } = fakeLoop(cpu);
    sleepToNextDeadline(loop);
    loop.yield(0.2, 1);
    loop.yield(0, 2);
    cpu.in_hlt = Uint8Array.of(0);
    loop.yield(0, 3);
    expect(sleeps).toEqual([HALTED_SLEEP_MIN_MS, HALTED_SLEEP_MIN_MS, 0]);
  });

  it("wakes a sleeping loop when asked to stop, so a pause does not wait out the sleep", () => {
    const cpu = haltedCpu(700);
    let woken = 0;
    cpu.stop_idling = () => woken++;
    const { loop, asked } = fakeLoop(cpu);
    sleepToNextDeadline(loop);
    loop.stop();
    expect(asked).toEqual(["stop"]);
    expect(woken).toBe(1);
  });

  it("tells `afterSlice` after every slice", () => {
    let slices = 0;
    const { loop } = fakeLoop(haltedCpu());
    sleepToNextDeadline(loop, () => slices++);
    loop.yield(5, 1);
    loop.yield(5, 2);
    expect(slices).toBe(2);
  });

  it("reads v86's fields through the proxies v86 hands out for its wasm memory", () => {
    const cpu = haltedCpu(700);
    const memory = Uint8Array.of(1);
    cpu.in_hlt = new Proxy({} as ArrayLike<number>, { get: (_, key) => new Uint8Array(memory.buffer)[key as unknown as number] });
    expect(sleepToNextDeadline(fakeLoop(cpu).loop)).toBe(true);
    expect(cpu.run_hardware_timers(true, 0)).toBe(700);
  });

  it("leaves another v86's loop as it is", () => {
    expect(sleepToNextDeadline(undefined)).toBe(false);
    const cpu = haltedCpu(700);
    const other = { ...fakeLoop(cpu).loop, stop: undefined } as unknown as V86Loop;
    expect(sleepToNextDeadline(other)).toBe(false);
    expect(cpu.run_hardware_timers(true, 0)).toBe(V86_NOTHING_DUE_MS);
  });
});

/**
 * How long v86's loop sleeps while the guest waits in HLT for an interrupt.
 *
 * v86 asks each timer device when it next needs the CPU (`run_hardware_timers`) and sleeps
 * that long; a device with nothing due answers 100 ms, so a halted guest with no timer due
 * still woke its worker 10 times a second (docs/performance.md, "Idle"). Here a halted guest
 * sleeps until the earliest deadline a device really has, read from the devices' own state,
 * up to HALTED_SLEEP_MAX_MS. Anything from the page (a key, a network frame, the control line)
 * raises an interrupt, and v86 wakes its loop at once for it (`stop_idling`), however long the
 * sleep was to be: only the timers decide the sleep.
 */

/** What v86 answers for "nothing due": its timers' cap (v86's cpu.js, acpi.js, apic.rs). */
export const V86_NOTHING_DUE_MS = 100;
/**
 * The longest sleep of a halted guest: a bound should a deadline ever come from a device this
 * file does not read. The guest's own timer (the local APIC's, one-shot when idle) normally
 * comes sooner: an idle guest asks for ~2 wakes a second.
 */
export const HALTED_SLEEP_MAX_MS = 1_000;
/**
 * The shortest sleep of a halted guest. As the PIT's deadline nears, the time left (in its
 * 1.19 MHz ticks) is a fraction of a millisecond, and at the deadline's own tick it is 0 until
 * the tick passes, so the loop spun on immediate tasks ~600 times a second. Its interrupt now
 * comes at most this late. A guest that computes is not affected (its loop asks for 0).
 */
export const HALTED_SLEEP_MIN_MS = 1;

/** The state of v86's timer devices this reads (names as in v86 0.5; each may be absent in another v86). */
export interface TimerDevices {
  /** The PIT: counter 0 drives IRQ 0 while enabled. */
  pit?: { counter_enabled?: ArrayLike<number> };
  /** The CMOS clock's three interrupts, each with its due time on `Date.now()`'s clock. */
  rtc?: {
    periodic_interrupt?: boolean;
    next_interrupt?: number;
    next_interrupt_alarm?: number;
    update_interrupt?: boolean;
    update_interrupt_time?: number;
  };
  /** ACPI's PM1 enable register: bit 0 is the PM timer's overflow interrupt. */
  acpi?: { pm1_enable?: number };
}

export interface HaltingCpu {
  /** 1 while the guest's CPU waits in HLT for an interrupt. */
  in_hlt: ArrayLike<number>;
  run_hardware_timers(acpiEnabled: boolean, now: number): number;
  /** The local APIC timer: ms to its next interrupt, or 100 when it is stopped. */
  apic_timer?(now: number): number;
  devices?: TimerDevices;
}

/**
 * The ms until the earliest timer deadline a halted guest has, given that v86's own reading
 * found none within its cap. Returns the cap itself (v86's answer, unchanged) when a device
 * has a deadline this cannot read: a running PIT, or ACPI's PM timer interrupt.
 */
export function untilNextDeadline(cpu: HaltingCpu, acpiEnabled: boolean, now: number, wallNow: number): number {
  const { pit, rtc, acpi } = cpu.devices ?? {};
  if (!pit?.counter_enabled || !rtc || (acpiEnabled && (!acpi || !cpu.apic_timer))) return V86_NOTHING_DUE_MS;
  if (pit.counter_enabled[0]) return V86_NOTHING_DUE_MS;
  if (acpiEnabled && ((acpi?.pm1_enable ?? 0) & 1) !== 0) return V86_NOTHING_DUE_MS;
  let due = HALTED_SLEEP_MAX_MS;
  const until = (at: number | undefined) => {
    if (at) due = Math.min(due, Math.max(0, at - wallNow));
  };
  if (rtc.periodic_interrupt) until(rtc.next_interrupt);
  until(rtc.next_interrupt_alarm);
  if (rtc.update_interrupt) until(rtc.update_interrupt_time);
  if (acpiEnabled && cpu.apic_timer) {
    // v86 answers exactly 100 for a stopped APIC timer; a running one gives its true time left.
    const apic = cpu.apic_timer(now);
    if (apic !== V86_NOTHING_DUE_MS) due = Math.min(due, apic);
  }
  return Math.max(HALTED_SLEEP_MIN_MS, due);
}

export interface V86Loop {
  /** Schedules the next slice after `delay` ms (v86's loop: `next_tick` → `yield` → `do_tick`). */
  yield(delay: number, tick: number): void;
  /** Asks the loop to stop at its next slice. */
  stop(): void;
  cpu: HaltingCpu & {
    /** Runs the next slice now if the loop sleeps (v86 calls it when an interrupt wakes the CPU). */
    stop_idling(): void;
  };
}

/**
 * Makes a halted guest sleep to its next timer deadline (see above), at least
 * HALTED_SLEEP_MIN_MS, and tells `afterSlice` after each of the loop's slices, before it
 * sleeps. Leaves another v86, whose loop does not look like this one, as it is (returns false).
 */
export function sleepToNextDeadline(loop: V86Loop | undefined, afterSlice: () => void = () => undefined): boolean {
  if (
    !loop ||
    typeof loop.yield !== "function" ||
    typeof loop.stop !== "function" ||
    typeof loop.cpu?.stop_idling !== "function" ||
    typeof loop.cpu.run_hardware_timers !== "function" ||
    // v86 hands out its wasm-memory fields as proxies that make a fresh view at each access.
    typeof loop.cpu.in_hlt?.[0] !== "number"
  )
    return false;
  const { cpu } = loop;
  const readTimers = cpu.run_hardware_timers.bind(cpu);
  // v86's wasm calls this through the CPU object at each look at the timers (its imports look
  // the method up by name), so the instance's own method takes its place.
  cpu.run_hardware_timers = (acpiEnabled, now) => {
    const due = readTimers(acpiEnabled, now);
    if (due < V86_NOTHING_DUE_MS || cpu.in_hlt[0] === 0) return due;
    return untilNextDeadline(cpu, acpiEnabled, now, Date.now()); // the CMOS clock's own clock
  };
  const scheduleAfter = loop.yield.bind(loop);
  loop.yield = (delay, tick) => {
    afterSlice();
    scheduleAfter(cpu.in_hlt[0] !== 0 ? Math.max(delay, HALTED_SLEEP_MIN_MS) : delay, tick);
  };
  // v86 stops at its next slice; a halted guest's next one may be a second away.
  const stopAtNextSlice = loop.stop.bind(loop);
  loop.stop = () => {
    stopAtNextSlice();
    cpu.stop_idling();
  };
  return true;
}

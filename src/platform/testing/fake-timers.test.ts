import { describe, expect, it } from "vitest";
import { fakeTimers } from "./fake-timers";

describe("fake timers", () => {
  it("fire nothing until time is moved, then each due timer in order of its time", async () => {
    const timers = fakeTimers();
    const fired: string[] = [];
    timers.setTimeout(() => fired.push("late"), 200);
    timers.setTimeout(() => fired.push("early"), 100);
    timers.setTimeout(() => fired.push("same time, armed second"), 100);
    expect(timers.armed()).toEqual([100, 100, 200]);
    await timers.advance(99);
    expect(fired).toEqual([]);
    await timers.advance(1);
    expect(fired).toEqual(["early", "same time, armed second"]);
    expect(timers.now()).toBe(100);
    expect(timers.armed()).toEqual([100]);
  });

  it("never fire a cleared timer, and fire one armed by a firing timer when its time comes within the advance", async () => {
    const timers = fakeTimers();
    const fired: number[] = [];
    const cleared = timers.setTimeout(() => fired.push(0), 10);
    timers.clearTimeout(cleared);
    timers.setTimeout(() => {
      fired.push(timers.now());
      timers.setTimeout(() => fired.push(timers.now()), 10);
    }, 10);
    await timers.advance(25);
    expect(fired).toEqual([10, 20]);
    expect(timers.now()).toBe(25);
  });

  it("fireArmed fires the timers armed now, as if their time had come, and not the ones they arm", () => {
    const timers = fakeTimers();
    const fired: string[] = [];
    timers.setTimeout(() => {
      fired.push("b");
      timers.setTimeout(() => fired.push("armed later"), 0);
    }, 60_000);
    timers.setTimeout(() => fired.push("a"), 5);
    timers.fireArmed();
    expect(fired).toEqual(["a", "b"]);
    expect(timers.armed()).toEqual([0]);
  });

  it("runUntil fails with the virtual time it waited when the condition never holds", async () => {
    const timers = fakeTimers();
    await expect(timers.runUntil(() => false, 50, 10)).rejects.toThrow("not done after 50 ms of virtual time");
  });
});

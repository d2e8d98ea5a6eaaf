import { describe, expect, it } from "vitest";
import { createJitGovernor } from "./jit-governor";

const options = { busyInstructions: 1000, enableAfter: 3, disableAfter: 2 };

describe("the JIT governor", () => {
  it("leaves the JIT off through a short burst of work (a curl, an ls)", () => {
    const governor = createJitGovernor(options);
    const changes = [5000, 9000, 10, 10, 8000, 10].map((n) => governor.observe(n));
    expect(changes.every((c) => c === null)).toBe(true);
    expect(governor.enabled).toBe(false);
  });

  it("turns it on after enough busy windows in a row, and off after enough quiet ones", () => {
    const governor = createJitGovernor(options);
    expect([2000, 2000, 2000].map((n) => governor.observe(n))).toEqual([null, null, "enable"]);
    expect(governor.enabled).toBe(true);
    // Still busy: nothing changes; one quiet window is not enough.
    expect([5000, 10, 5000].map((n) => governor.observe(n))).toEqual([null, null, null]);
    expect([10, 10].map((n) => governor.observe(n))).toEqual([null, "disable"]);
    expect(governor.enabled).toBe(false);
  });

  it("starts on for a boot and turns off once the booted guest is quiet", () => {
    const governor = createJitGovernor(options, true);
    expect(governor.enabled).toBe(true);
    expect([10, 10].map((n) => governor.observe(n))).toEqual([null, "disable"]);
  });

  it("counts a window exactly at the threshold as busy", () => {
    const governor = createJitGovernor(options);
    expect([1000, 1000, 1000].map((n) => governor.observe(n))).toEqual([null, null, "enable"]);
  });
});

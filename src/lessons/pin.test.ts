import { describe, expect, it } from "vitest";
import { checkLessonPin, lessonPin, splitLessonRef } from "./pin";

// sha256("abc"), FIPS 180-2 appendix B.1.
const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

describe("a lesson's pin", () => {
  it("is the sha256 of its exact bytes", async () => {
    expect(await lessonPin("abc")).toBe(ABC);
    expect(await lessonPin(new TextEncoder().encode("abc"))).toBe(ABC);
  });

  it("checks bytes against a pin, any case, and names both hashes on a mismatch", async () => {
    expect(await checkLessonPin("abc", ABC.toUpperCase())).toEqual({ ok: true, pin: ABC });
    const bad = await checkLessonPin("abd", ABC);
    expect(bad).toMatchObject({ ok: false, code: "lesson-pin-mismatch" });
    expect(!bad.ok && bad.reason).toMatch(new RegExp(`reference pins sha256=${ABC}`));
  });

  it("splits FILE#sha256=HEX and refuses a fragment that is not a pin", () => {
    expect(splitLessonRef(`lessons/tour.yaml#sha256=${ABC}`)).toEqual({ ok: true, ref: "lessons/tour.yaml", pin: ABC });
    expect(splitLessonRef("lessons/tour.yaml")).toEqual({ ok: true, ref: "lessons/tour.yaml", pin: null });
    expect(splitLessonRef("a.yaml#sha256=123")).toMatchObject({ ok: false, reason: /64 hex digits/ });
  });
});

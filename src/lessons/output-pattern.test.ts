import { describe, expect, it } from "vitest";
import { compileOutputPattern, estimatedInstructions, OUTPUT_PATTERN_MAX_INSTRUCTIONS } from "./output-pattern";

describe("an output pattern compiles for the linear-time judge, or says why not", () => {
  it("reads the JavaScript spellings lesson authors write (\\d, \\u0041, named groups, \\/)", () => {
    const cases: [string, string][] = [
      ["^[0-9a-f]{64}  /tmp/pins/harness.yaml", `${"a".repeat(64)}  /tmp/pins/harness.yaml`],
      ["\\d+ OK", "200 OK"],
      ["\\u0041BC", "ABC"],
      ["(?<code>\\d{3})", "403"],
      ["files\\/agent.sh: OK", "files/agent.sh: OK"],
    ];
    for (const [source, text] of cases) {
      const compiled = compileOutputPattern(source);
      expect(compiled.ok && compiled.pattern.test(text), source).toBe(true);
    }
  });

  it("a short pattern that compiles past the instruction cap is output-pattern-too-large", () => {
    const compiled = compileOutputPattern("a{1000}".repeat(25));
    expect(compiled).toEqual({
      ok: false,
      code: "output-pattern-too-large",
      reason: expect.stringMatching(
        new RegExp(`compile to about 25000 instructions; an output pattern compiles to at most ${OUTPUT_PATTERN_MAX_INSTRUCTIONS}`),
      ),
    });
  });

  it("nested repeats past RE2's own bound are output-pattern-too-large", () => {
    expect(compileOutputPattern("((a{100}){100})")).toMatchObject({ ok: false, code: "output-pattern-too-large" });
  });

  it("lookbehind is output-pattern-unsupported", () => {
    expect(compileOutputPattern("(?<!a)b")).toMatchObject({ ok: false, code: "output-pattern-unsupported" });
  });
});

describe("a pattern's compiled size is estimated from its text, before compiling", () => {
  it("the estimate is near RE2's own count, and not below it by much", () => {
    const cases: [string, number][] = [
      ["a{1000}".repeat(5), 5000],
      ["(abc){1000}", 5000],
      ["x{2,1000}", 1998],
      ["^[0-9a-f]{64}  /tmp/x", 73],
      ["\\d{3} OK", 6],
      ["\\u{1F600}{500}", 500],
      ["[^]a]{900}", 900],
    ];
    for (const [source, estimate] of cases) expect(estimatedInstructions(source), source).toBe(estimate);
  });

  it("a pattern estimated past the cap is refused without being compiled", () => {
    expect(compileOutputPattern("a{1000}".repeat(142))).toMatchObject({
      ok: false,
      code: "output-pattern-too-large",
      reason: expect.stringMatching(/would compile to about 142000 instructions/),
    });
  });
});

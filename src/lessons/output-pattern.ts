import { RE2JS } from "re2js";

/**
 * A lesson's `output:` pattern comes from whoever wrote the lesson (a link, a file someone
 * sent), and it is matched against what a command printed, on the page's main thread or in
 * `lesson test`. JavaScript's RegExp backtracks: `/^(a+)+X$/` against 40 letters runs for
 * minutes. So patterns run in RE2 (re2js, pure JS, the same in the page and in Node), whose
 * time is linear in the text for a given pattern, and both sides are capped: the pattern's
 * length and compiled size, and the output judged (its last OUTPUT_JUDGED_MAX_CHARS).
 * RE2 has no backreferences or lookaround; a pattern that uses them is lesson-invalid.
 */
export const OUTPUT_PATTERN_MAX_CHARS = 1000;
/** RE2 program instructions: `x{1000}` is ~1,000; past this, compiling alone takes too long. */
export const OUTPUT_PATTERN_MAX_INSTRUCTIONS = 20_000;
/** The judge reads the last 64 Ki characters of a command's output (a long build log's tail). */
export const OUTPUT_JUDGED_MAX_CHARS = 64 * 1024;

export interface OutputPattern {
  /** True when the pattern matches somewhere in the text (like RegExp.test without flags). */
  test(text: string): boolean;
}

/** Why a pattern cannot be judged: `unsupported` (RE2 does not have it) or `too-large`. */
export type OutputPatternCompile =
  | { ok: true; pattern: OutputPattern }
  | { ok: false; code: "output-pattern-unsupported" | "output-pattern-too-large"; reason: string };

const CACHE_MAX = 64;
const cache = new Map<string, OutputPatternCompile>();

function compileUncached(source: string): OutputPatternCompile {
  if (source.length > OUTPUT_PATTERN_MAX_CHARS)
    return {
      ok: false,
      code: "output-pattern-too-large",
      reason: `the pattern is ${source.length} characters; an output pattern has at most ${OUTPUT_PATTERN_MAX_CHARS}`,
    };
  let compiled: RE2JS;
  try {
    // translateRegExp reads JavaScript spellings RE2 writes otherwise (\u0041, (?<name>…), \/).
    compiled = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, "");
    const tooLarge = /repeat count|too large|size/i.test(message);
    return {
      ok: false,
      code: tooLarge ? "output-pattern-too-large" : "output-pattern-unsupported",
      reason: tooLarge
        ? `the pattern is too large to judge in linear time (${message})`
        : `not a pattern the linear-time judge (RE2 syntax: no backreferences, no lookaround) can run: ${message}`,
    };
  }
  const size = compiled.re2().prog.numInst();
  if (size > OUTPUT_PATTERN_MAX_INSTRUCTIONS)
    return {
      ok: false,
      code: "output-pattern-too-large",
      reason: `the pattern compiles to ${size} instructions; an output pattern compiles to at most ${OUTPUT_PATTERN_MAX_INSTRUCTIONS}`,
    };
  return { ok: true, pattern: { test: (text) => compiled.test(text) } };
}

/** The pattern compiled for the judge, or why it cannot be judged. Compiled once per source. */
export function compileOutputPattern(source: string): OutputPatternCompile {
  const hit = cache.get(source);
  if (hit) return hit;
  const result = compileUncached(source);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(source, result);
  return result;
}

/** The part of a command's output the judge reads: all of it, or its last OUTPUT_JUDGED_MAX_CHARS. */
export function judgedOutput(output: string): { text: string; cut: boolean } {
  if (output.length <= OUTPUT_JUDGED_MAX_CHARS) return { text: output, cut: false };
  return { text: output.slice(-OUTPUT_JUDGED_MAX_CHARS), cut: true };
}

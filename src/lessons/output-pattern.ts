import { RE2JS } from "re2js";
import { messageOf } from "../platform";

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

const HUGE = 1e12;

/**
 * An upper estimate of a pattern's compiled size, read from its text in one pass without
 * compiling: each atom (a character, an escape, a class) is one instruction, a group the sum
 * of its parts, `x{n,m}` is x times n plus twice x times (m - n). RE2's compile time grows with the program
 * (a{1000} repeated across 1,000 characters: 142,000 instructions, ~0.4 s), so a pattern is
 * refused on this estimate before it is compiled, and a lesson's patterns are capped in sum.
 */
export function estimatedInstructions(source: string): number {
  const frames: { sum: number; last: number }[] = [{ sum: 0, last: 0 }];
  const top = () => frames[frames.length - 1] as { sum: number; last: number };
  const atom = (size: number) => {
    const frame = top();
    frame.sum = Math.min(HUGE, frame.sum + size);
    frame.last = size;
  };
  let i = 0;
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === "\\") {
      // \x{…}, \u{…}, \p{…}: the braces belong to the escape.
      const braced = "xupP".includes(source.charAt(i + 1)) && source.charAt(i + 2) === "{";
      i += braced ? Math.max(3, source.indexOf("}", i + 2) - i + 1) : 2;
      atom(1);
      continue;
    }
    if (c === "[") {
      let j = i + 1;
      if (source.charAt(j) === "^") j += 1;
      if (source.charAt(j) === "]") j += 1;
      while (j < source.length && source.charAt(j) !== "]") j += source.charAt(j) === "\\" ? 2 : 1;
      i = j + 1;
      atom(1);
      continue;
    }
    if (c === "(") {
      frames.push({ sum: 0, last: 0 });
      i += 1;
      continue;
    }
    if (c === ")" && frames.length > 1) {
      const group = frames.pop() as { sum: number; last: number };
      atom(Math.min(HUGE, group.sum + 2));
      i += 1;
      continue;
    }
    if (c === "|") {
      const frame = top();
      frame.sum += 1;
      frame.last = 0;
      i += 1;
      continue;
    }
    if (c === "*" || c === "+" || c === "?") {
      const frame = top();
      frame.sum += 1;
      frame.last += 1;
      i += 1;
      continue;
    }
    const counted = c === "{" ? /^\{(\d{1,7})(?:,(\d{0,7}))?\}/.exec(source.slice(i, i + 20)) : null;
    if (counted) {
      // x{n,m}: n copies of x, then m-n optional ones (a copy and a branch each); x{n,}: n and a loop.
      const least = Number(counted[1]);
      const most = counted[2] === undefined ? least : counted[2] === "" ? least + 1 : Math.max(least, Number(counted[2]));
      const times = Math.max(1, least + 2 * (most - least));
      const frame = top();
      frame.sum = Math.min(HUGE, frame.sum + frame.last * (times - 1));
      frame.last = Math.min(HUGE, frame.last * times);
      i += counted[0].length;
      continue;
    }
    atom(1);
    i += 1;
  }
  while (frames.length > 1) {
    const group = frames.pop() as { sum: number; last: number };
    atom(group.sum);
  }
  return top().sum;
}

const CACHE_MAX = 64;
const cache = new Map<string, OutputPatternCompile>();

function compileUncached(source: string): OutputPatternCompile {
  if (source.length > OUTPUT_PATTERN_MAX_CHARS)
    return {
      ok: false,
      code: "output-pattern-too-large",
      reason: `the pattern is ${source.length} characters; an output pattern has at most ${OUTPUT_PATTERN_MAX_CHARS}`,
    };
  const estimate = estimatedInstructions(source);
  if (estimate > OUTPUT_PATTERN_MAX_INSTRUCTIONS)
    return {
      ok: false,
      code: "output-pattern-too-large",
      reason: `the pattern would compile to about ${estimate} instructions; an output pattern compiles to at most ${OUTPUT_PATTERN_MAX_INSTRUCTIONS}`,
    };
  let compiled: RE2JS;
  try {
    // translateRegExp reads JavaScript spellings RE2 writes otherwise (\u0041, (?<name>…), \/).
    compiled = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    const message = messageOf(error).replace(/^error parsing regexp: /, "");
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

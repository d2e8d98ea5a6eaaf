/**
 * Every string the registry sends is hostile data (docs/decisions/0003-skills-from-a-public-registry.md):
 * it may carry terminal escapes, invisible characters that make one name look like another, or
 * a wall of text. This turns it into one short, visible line before it reaches a
 * panel, a log or a model.
 */

/** The longest registry string we show, in code points. */
export const MAX_REGISTRY_STRING = 200;

const ESC = 0x1b;
const BEL = 0x07;
/** 8-bit introducers that open a string terminated by ST: DCS, SOS, OSC, PM, APC. */
const C1_STRING_OPENERS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** 7-bit `ESC x` that open the same strings: P (DCS), X (SOS), ] (OSC), ^ (PM), _ (APC). */
const ESC_STRING_OPENERS = new Set([0x50, 0x58, 0x5d, 0x5e, 0x5f]);
const C1_CSI = 0x9b;
const C1_ST = 0x9c;

/**
 * Removes terminal escape sequences: CSI (`ESC [` or 0x9B) with its parameters, OSC / DCS /
 * SOS / PM / APC strings up to BEL or ST, and two-byte (nF / Fp / Fe / Fs) escapes. A sequence
 * cut off by the end of the string is removed to the end: an unterminated string swallows
 * whatever follows it on a terminal, so nothing after it is trustworthy either.
 */
export function stripEscapes(input: string): string {
  let out = "";
  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input.charCodeAt(i);
    if (c === ESC) {
      const next = i + 1 < n ? input.charCodeAt(i + 1) : -1;
      if (next === -1) break; // a lone ESC at the end
      if (next === 0x5b) {
        i = skipCsi(input, i + 2);
      } else if (ESC_STRING_OPENERS.has(next)) {
        i = skipControlString(input, i + 2);
      } else {
        i = skipTwoByte(input, i + 1);
      }
      continue;
    }
    if (c === C1_CSI) {
      i = skipCsi(input, i + 1);
      continue;
    }
    if (C1_STRING_OPENERS.has(c)) {
      i = skipControlString(input, i + 1);
      continue;
    }
    out += input[i];
    i++;
  }
  return out;
}

/** CSI: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E. */
function skipCsi(s: string, from: number): number {
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c >= 0x40 && c <= 0x7e) return i + 1;
    if (c < 0x20 || c > 0x3f) return i; // malformed: drop the introducer and what we read
    i++;
  }
  return s.length;
}

/** A control string runs to BEL, `ESC \` or 0x9C; unterminated, it runs to the end. */
function skipControlString(s: string, from: number): number {
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === BEL || c === C1_ST) return i + 1;
    if (c === ESC) return i + 1 < s.length && s.charCodeAt(i + 1) === 0x5c ? i + 2 : i + 1;
    i++;
  }
  return s.length;
}

/** `ESC` then intermediates 0x20–0x2F then one final byte 0x30–0x7E (e.g. `ESC ( B`, `ESC c`). */
function skipTwoByte(s: string, from: number): number {
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x2f) {
      i++;
      continue;
    }
    return c >= 0x30 && c <= 0x7e ? i + 1 : i;
  }
  return s.length;
}

// Whitespace-like controls become spaces (so "a\nb" stays two words), then every other control
// (C0, DEL, C1), every format character (zero-width, bidi overrides and isolates, soft hyphen,
// Unicode tags), variation selectors and lone surrogates go.
const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u0085\u2028\u2029]/g;
// Variation selectors and Hangul fillers are combining marks, so they sit outside the class.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\u3164\uFFA0]|\p{Variation_Selector}|\u115F|\u1160/gu;
const WHITESPACE_RUN = /\s+/gu;

/** One visible line of at most `MAX_REGISTRY_STRING` code points. */
export function sanitizeRegistryString(input: string): string {
  const visible = stripEscapes(input).replace(WHITESPACE_CONTROLS, " ").replace(INVISIBLE, "");
  const line = visible.replace(WHITESPACE_RUN, " ").trim();
  const points = Array.from(line);
  return points.length <= MAX_REGISTRY_STRING ? line : points.slice(0, MAX_REGISTRY_STRING).join("").trimEnd();
}

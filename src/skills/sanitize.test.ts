import { describe, expect, it } from "vitest";
import { MAX_REGISTRY_STRING, sanitizeRegistryString } from "./index";

// Every registry string is hostile data: control characters and
// terminal escapes stripped, newlines collapsed, length capped.
const ESC = "\u001b";
const BEL = "\u0007";

describe("registry strings are sanitized before they reach any context", () => {
  it.each([
    ["a CSI colour sequence is removed", `${ESC}[31mred${ESC}[0m`, "red"],
    ["a CSI with private parameters and intermediates is removed", `a${ESC}[?1049hb${ESC}[1 qc`, "abc"],
    ["an 8-bit CSI (0x9B) is removed", "a\u009b2Jb", "ab"],
    [
      "an OSC hyperlink terminated by BEL is removed, its link text kept",
      `${ESC}]8;;https://evil.example/${BEL}click${ESC}]8;;${BEL}`,
      "click",
    ],
    ["an OSC title terminated by ST (ESC \\) is removed", `x${ESC}]0;pwned${ESC}\\y`, "xy"],
    ["an 8-bit OSC (0x9D) terminated by 0x9C is removed", "x\u009d0;pwned\u009cy", "xy"],
    ["a DCS string is removed", `x${ESC}P+q544e${ESC}\\y`, "xy"],
    ["a PM string is removed", `x${ESC}^private${ESC}\\y`, "xy"],
    ["an APC string is removed", `x${ESC}_kitty-graphics${ESC}\\y`, "xy"],
    ["an SOS string is removed", `x${ESC}Xsos${ESC}\\y`, "xy"],
    ["a two-byte escape (RIS) is removed", `x${ESC}cy`, "xy"],
    ["a charset designation (ESC ( B) is removed", `x${ESC}(By`, "xy"],
    ["a keypad-mode escape (ESC =) is removed", `x${ESC}=y`, "xy"],
  ])("%s", (_name, input, expected) => {
    expect(sanitizeRegistryString(input)).toBe(expected);
  });

  it.each([
    ["a CSI cut off in its parameters", `name${ESC}[31`, "name"],
    ["a CSI cut off after its introducer", `name${ESC}[`, "name"],
    ["a lone ESC at the end", `name${ESC}`, "name"],
    ["an OSC never terminated swallows the rest", `name${ESC}]8;;https://evil.example/ hidden text`, "name"],
    ["a DCS never terminated swallows the rest", `name${ESC}Pq#0;2;0;0;0`, "name"],
    ["an APC never terminated swallows the rest", `name${ESC}_Gf=100;AAAA`, "name"],
    ["an escape cut off in its intermediates", `name${ESC}(`, "name"],
    ["an 8-bit OSC never terminated", "name\u009d0;title", "name"],
  ])("a truncated escape at the end of the string is removed: %s", (_name, input, expected) => {
    expect(sanitizeRegistryString(input)).toBe(expected);
  });

  it.each([
    ["right-to-left override", "exe\u202Etxt.pdf", "exetxt.pdf"],
    ["left-to-right embedding and pop", "\u202Aa\u202Cb", "ab"],
    ["isolates (LRI, RLI, FSI, PDI)", "\u2066a\u2067b\u2068c\u2069", "abc"],
    ["LRM, RLM and the Arabic letter mark", "a\u200Eb\u200Fc\u061Cd", "abcd"],
  ])("bidi controls are stripped: %s", (_name, input, expected) => {
    expect(sanitizeRegistryString(input)).toBe(expected);
  });

  it.each([
    ["zero-width space", "pay\u200Bpal", "paypal"],
    ["zero-width joiner and non-joiner", "a\u200Cb\u200Dc", "abc"],
    ["word joiner and invisible operators", "a\u2060b\u2062c", "abc"],
    ["byte-order mark", "\uFEFFname", "name"],
    ["soft hyphen", "na\u00ADme", "name"],
    ["Unicode tag characters (invisible ASCII smuggling)", "ok\u{E0049}\u{E0067}\u{E006E}", "ok"],
    ["variation selectors", "a\uFE0Fb\u{E0100}c", "abc"],
    ["Hangul filler", "a\u3164b", "ab"],
  ])("zero-width and invisible characters are stripped: %s", (_name, input, expected) => {
    expect(sanitizeRegistryString(input)).toBe(expected);
  });

  it.each([
    ["NUL and other C0 controls", "a\u0000b\u0001c\u0008d", "abcd"],
    ["DEL", "a\u007Fb", "ab"],
    ["C1 controls (NEL is a line break; 0x80, 0x81 are dropped)", "a\u0085b\u0080c\u0081d", "a bcd"],
    ["a lone surrogate", "a\uD800b", "ab"],
  ])("control characters are stripped: %s", (_name, input, expected) => {
    expect(sanitizeRegistryString(input)).toBe(expected);
  });

  it.each([
    ["newlines become one space", "line one\n\nline two", "line one line two"],
    ["tabs, CR and form feed collapse", "a\t\r\f b", "a b"],
    ["line and paragraph separators collapse", "a\u2028b\u2029c", "a b c"],
    ["no-break and ideographic spaces collapse", "a\u00A0\u3000b", "a b"],
    ["leading and trailing whitespace is trimmed", "  \n name \t ", "name"],
  ])("whitespace is collapsed: %s", (_name, input, expected) => {
    expect(sanitizeRegistryString(input)).toBe(expected);
  });

  it("the length is capped at 200 code points", () => {
    const out = sanitizeRegistryString("x".repeat(5000));
    expect(out).toBe("x".repeat(MAX_REGISTRY_STRING));
    expect(MAX_REGISTRY_STRING).toBe(200);
  });

  it("the cap counts code points, so an astral character is never split into a lone surrogate", () => {
    const out = sanitizeRegistryString("😀".repeat(300));
    expect(Array.from(out)).toHaveLength(200);
    expect(out).toBe("😀".repeat(200));
  });

  it("the cap applies after stripping, so escapes cannot push visible text out", () => {
    expect(sanitizeRegistryString(`${`${ESC}[0m`.repeat(500)}visible`)).toBe("visible");
  });

  it("ordinary names pass through unchanged", () => {
    expect(sanitizeRegistryString("PDF tools — extract tables (v2)")).toBe("PDF tools — extract tables (v2)");
  });
});

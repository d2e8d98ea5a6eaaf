/**
 * Characters that change how a line looks without being seen: controls (C0, DEL, C1), format
 * characters (bidi embeddings, overrides and isolates, zero-width joiners and spaces, the BOM,
 * the Arabic letter mark, tag characters), line and paragraph separators, lone surrogates,
 * and the other default-ignorable code points (variation selectors, Hangul fillers). A hostile
 * URL uses them to make a log line read as something else (CVE-2021-42574, "Trojan Source").
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu;

const hexOf = (char: string): string => (char.codePointAt(0) ?? 0).toString(16).toUpperCase();

/**
 * Text from an event as a panel shows it: every invisible or layout-changing character becomes
 * a visible `\u{…}` escape, so what is shown is what was sent. A literal `\u{` in the input is
 * escaped too (its backslash as `\u{5C}`), so an escape shown is never one the sender typed.
 */
export function displayText(text: string): string {
  return text.replace(/\\(?=u\{)/g, "\\u{5C}").replace(INVISIBLE, (char) => `\\u{${hexOf(char)}}`);
}

const jsonEscape = (char: string): string => {
  let out = "";
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
};

/**
 * JSON text with the same characters written as JSON `\uXXXX` escapes (a surrogate pair for
 * one beyond the BMP). Valid JSON that parses back to the same value, but a terminal or viewer
 * showing the raw line sees the escape, not the effect. Outside strings JSON text holds only
 * ASCII, so every match is inside a string; JSON.stringify already escapes C0 and lone surrogates.
 */
export function escapeJsonText(json: string): string {
  return json.replace(INVISIBLE, jsonEscape);
}

import { describe, expect, it } from "vitest";
import { createEventLog, displayText, parseJsonLines, toJsonLine } from "./index";

// A logged URL carrying bidi or zero-width characters must not be shown
// as something else (log-display spoofing). Panels and JSON lines show them as escapes.

const SPOOFERS: [string, string][] = [
  ["zero-width space", "\u200B"],
  ["zero-width non-joiner", "\u200C"],
  ["zero-width joiner", "\u200D"],
  ["left-to-right mark", "\u200E"],
  ["right-to-left mark", "\u200F"],
  ["left-to-right embedding", "\u202A"],
  ["right-to-left embedding", "\u202B"],
  ["pop directional formatting", "\u202C"],
  ["left-to-right override", "\u202D"],
  ["right-to-left override", "\u202E"],
  ["left-to-right isolate", "\u2066"],
  ["right-to-left isolate", "\u2067"],
  ["first strong isolate", "\u2068"],
  ["pop directional isolate", "\u2069"],
  ["byte order mark", "\uFEFF"],
  ["Arabic letter mark", "\u061C"],
  ["soft hyphen (another format character)", "\u00AD"],
  ["a tag character beyond the BMP", "\u{E0041}"],
  ["a NUL", "\u0000"],
  ["an escape (C0 control)", "\u001B"],
  ["DEL", "\u007F"],
  ["a C1 control (NEL)", "\u0085"],
  ["the line separator", "\u2028"],
  ["the paragraph separator", "\u2029"],
  ["a Hangul filler (default ignorable)", "\u3164"],
  ["a lone surrogate", "\uD800"],
];

describe("panels show invisible and bidi characters in logged text as visible \\u{…} escapes", () => {
  it.each(SPOOFERS)("a %s is shown as its code point", (_name, char) => {
    const hex = (char.codePointAt(0) ?? 0).toString(16).toUpperCase();
    expect(displayText(`https://a.example/${char}txt.exe`)).toBe(`https://a.example/\\u{${hex}}txt.exe`);
  });

  it("the classic right-to-left override spoof reads in its real order", () => {
    expect(displayText("https://evil.example/\u202Egnp.exe")).toBe("https://evil.example/\\u{202E}gnp.exe");
  });

  it("visible text, non-Latin letters and emoji without joiners are shown unchanged", () => {
    const text = "https://例え.テスト/über?q=naïve&x=🙂 GET /a%20b";
    expect(displayText(text)).toBe(text);
  });

  it("a literal \\u{…} typed by the sender is shown escaped, so it cannot pose as an escape", () => {
    expect(displayText("https://a.example/\\u{202E}")).toBe("https://a.example/\\u{5C}u{202E}");
    expect(displayText("C:\\path\\file")).toBe("C:\\path\\file");
  });
});

describe("JSON lines carry invisible and bidi characters as JSON escapes, and parse back to the same event", () => {
  it.each(SPOOFERS.filter(([, c]) => c !== "\uD800"))("a %s never appears raw in a JSON line", (_name, char) => {
    const log = createEventLog({ clock: () => 1 });
    const event = log.append({ kind: "wire.dns", name: `a${char}b.example`, type: "A", answer: "REFUSED" });
    const line = toJsonLine(event);
    expect(line.includes(char)).toBe(false);
    expect(/^[\x20-\x7e]*\n$/.test(line)).toBe(true);
    expect(parseJsonLines(line).events).toEqual([event]);
  });

  it("a lone surrogate is escaped too (well-formed JSON.stringify)", () => {
    const log = createEventLog({ clock: () => 1 });
    const event = log.append({ kind: "wire.dns", name: "a\uD800b", type: "A", answer: "REFUSED" });
    expect(toJsonLine(event)).toContain("a\\ud800b");
  });
});

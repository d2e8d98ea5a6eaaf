import { describe, expect, it } from "vitest";
import { isTerminalReport } from "./terminal-report";

describe("what the terminal answers by itself, not the reader", () => {
  it("is a cursor position report, as busybox's shell asks for at every prompt", () => {
    expect(isTerminalReport("\x1b[1;10R")).toBe(true);
    expect(isTerminalReport("\x1b[?24;80R")).toBe(true);
  });

  it("is a device attributes, mode or focus report, and an OSC or DCS reply", () => {
    for (const reply of [
      "\x1b[?1;2c",
      "\x1b[>0;276;0c",
      "\x1b[?2004;1$y",
      "\x1b[I",
      "\x1b[O",
      "\x1b]11;rgb:0b0b/0e0e/1414\x07",
      "\x1b]10;rgb:d7/da/e0\x1b\\",
      "\x1bP1$r0m\x1b\\",
    ])
      expect(isTerminalReport(reply), JSON.stringify(reply)).toBe(true);
  });

  it("is not a key the reader pressed: letters, Enter, arrows, function keys, Ctrl+C, a paste", () => {
    for (const typed of ["a", "ls -la\r", "\r", "\x1b[A", "\x1b[D", "\x1bOP", "\x1b[15~", "\x03", "\x1b", "echo 1;10R", "\x1b[6n"])
      expect(isTerminalReport(typed), JSON.stringify(typed)).toBe(false);
  });
});

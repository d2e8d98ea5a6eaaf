import { describe, expect, it } from "vitest";
import { noticeAbovePrompt } from "./insertion";

const Y = "\x1b[33m";
const R = "\x1b[0m";

describe("a notice written above the prompt", () => {
  it("with room below, inserts its rows at the prompt's row and puts the cursor back one row lower", () => {
    expect(noticeAbovePrompt(["refused"], { x: 2, y: 5, rows: 24, wrappedAbove: 0 })).toBe(
      `\x1b[6;1H\x1b[1L\x1b[6;1H${Y}refused${R}\x1b[7;3H`,
    );
  });

  it("at the bottom row, first scrolls the screen by line feeds so no line is lost off the top", () => {
    expect(noticeAbovePrompt(["a", "b"], { x: 2, y: 23, rows: 24, wrappedAbove: 0 })).toBe(
      `\x1b[24;1H\n\n\x1b[22;1H\x1b[2L\x1b[22;1H${Y}a${R}\x1b[23;1H${Y}b${R}\x1b[24;3H`,
    );
  });

  it("goes above the whole of a prompt line that wraps, not between its rows", () => {
    expect(noticeAbovePrompt(["n"], { x: 4, y: 10, rows: 24, wrappedAbove: 2 })).toBe(`\x1b[9;1H\x1b[1L\x1b[9;1H${Y}n${R}\x1b[12;5H`);
  });

  it("writes nothing when there are no rows or no room", () => {
    expect(noticeAbovePrompt([], { x: 0, y: 0, rows: 24, wrappedAbove: 0 })).toBe("");
    expect(noticeAbovePrompt(["n"], { x: 0, y: 0, rows: 1, wrappedAbove: 0 })).toBe("");
  });
});

import { describe, expect, it } from "vitest";
import { noticeAbovePrompt } from "./insertion";

const Y = "\x1b[33m";
const R = "\x1b[0m";

describe("a notice written above the prompt", () => {
  it("makes room by line feeds, inserts its rows above the prompt's row and returns to the prompt's cursor", () => {
    expect(noticeAbovePrompt(["refused"], { rows: 24, wrappedAbove: 0 })).toBe(`\n\x1b[1A\x1b7\r\x1b[1L\r${Y}refused${R}\x1b8\x1b[1B`);
  });

  it("writes several rows one under the other, each from the first column", () => {
    expect(noticeAbovePrompt(["a", "b"], { rows: 24, wrappedAbove: 0 })).toBe(
      `\n\n\x1b[2A\x1b7\r\x1b[2L\r${Y}a${R}\x1b[1E${Y}b${R}\x1b8\x1b[2B`,
    );
  });

  it("goes above the whole of a prompt line that wraps, not between its rows", () => {
    expect(noticeAbovePrompt(["n"], { rows: 24, wrappedAbove: 2 })).toBe(`\n\x1b[1A\x1b7\x1b[2A\r\x1b[1L\r${Y}n${R}\x1b8\x1b[1B`);
  });

  it("writes no more rows than fit above the prompt, and nothing when none fit", () => {
    expect(noticeAbovePrompt(["a", "b", "c"], { rows: 3, wrappedAbove: 0 })).toContain("\x1b[2L");
    expect(noticeAbovePrompt([], { rows: 24, wrappedAbove: 0 })).toBe("");
    expect(noticeAbovePrompt(["n"], { rows: 1, wrappedAbove: 0 })).toBe("");
  });
});

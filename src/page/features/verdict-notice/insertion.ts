/**
 * Where the terminal's cursor is when a notice is written: the prompt the shell has just drawn
 * (0-based rows and columns of the screen, not the scrollback).
 */
export interface PromptAt {
  /** Cursor column and row. */
  x: number;
  y: number;
  /** The screen's height in rows. */
  rows: number;
  /** How many rows above the cursor's row the prompt's line started (a long line wraps). */
  wrappedAbove: number;
}

const YELLOW = "\x1b[33m";
const RESET = "\x1b[0m";

/**
 * The escape sequence that puts `rows` of notice above the prompt just drawn, leaving the
 * prompt and its cursor as they were (one line lower): the rows go under the finished
 * command's output, where the person is reading. When the prompt sits at the bottom, the
 * screen first scrolls by a line feed at the last row, so the lines pushed off the top go to
 * the scrollback instead of being lost. The rows must hold visible characters only.
 */
export function noticeAbovePrompt(rows: readonly string[], at: PromptAt): string {
  const top = at.y - at.wrappedAbove;
  // Never more rows than fit above the prompt's line on one screen.
  const count = Math.min(rows.length, Math.max(0, at.rows - 1 - at.wrappedAbove));
  if (count === 0 || top < 0) return "";
  const free = at.rows - 1 - at.y;
  const scroll = Math.max(0, count - free);
  let out = "";
  if (scroll > 0) out += `\x1b[${at.rows};1H${"\n".repeat(scroll)}`;
  const start = top - scroll;
  const cursorRow = at.y - scroll + count;
  out += `\x1b[${start + 1};1H\x1b[${count}L`;
  for (let i = 0; i < count; i++) out += `\x1b[${start + 1 + i};1H${YELLOW}${rows[i]}${RESET}`;
  out += `\x1b[${cursorRow + 1};${at.x + 1}H`;
  return out;
}

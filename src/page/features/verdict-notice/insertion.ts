/** The terminal around the prompt a notice is written above. */
export interface PromptShape {
  /** The screen's height in rows. */
  rows: number;
  /** How many rows above the cursor's row the prompt's line started (a long line wraps). */
  wrappedAbove: number;
}

const ESC = "\x1b";
const CSI = `${ESC}[`;
const YELLOW = `${CSI}33m`;
const RESET = `${CSI}0m`;

/**
 * The escape sequence that puts `rows` of notice above the prompt just drawn, leaving the
 * prompt, what was typed on it and the cursor as they were (lower by as many rows): the rows
 * go under the finished command's output, where the person is reading. Every move is relative
 * to the cursor when the terminal reads the sequence, not when it was built, so guest output
 * that arrives in between cannot misplace it. Line feeds first make room below the cursor
 * (at the bottom they scroll the top lines into the scrollback, never losing them); the rows
 * are then inserted above the prompt's first row. The rows must hold visible characters only.
 */
export function noticeAbovePrompt(rows: readonly string[], shape: PromptShape): string {
  // Never more rows than fit above the prompt's line on one screen.
  const count = Math.min(rows.length, Math.max(0, shape.rows - 1 - shape.wrappedAbove));
  if (count === 0) return "";
  return [
    "\n".repeat(count), // room below the cursor: it moves down, or the screen scrolls
    `${CSI}${count}A`, // back to the cursor's row (the prompt moved up by any scroll)
    `${ESC}7`, // keep the cursor (row, column, colours)
    shape.wrappedAbove > 0 ? `${CSI}${shape.wrappedAbove}A` : "",
    `\r${CSI}${count}L\r`, // open the rows above the prompt's first row
    rows
      .slice(0, count)
      .map((row) => `${YELLOW}${row}${RESET}`)
      .join(`${CSI}1E`),
    `${ESC}8`, // the kept cursor, whose row now holds a notice…
    `${CSI}${count}B`, // …so down by as many rows, onto the prompt again
  ].join("");
}

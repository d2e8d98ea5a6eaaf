import type { GuestConsole } from "../../console";

const CURSOR_QUERY = "\x1b[6n";

/** The text a terminal would show on the cursor's line: escape sequences out, up to the last carriage return. */
export function visibleLine(text: string): string {
  const line = text.slice(text.lastIndexOf("\n") + 1).replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "");
  return line.slice(line.lastIndexOf("\r") + 1);
}

/**
 * Headless, this process is the guest's terminal: the line editor asks where the cursor is
 * (`ESC[6n`) after drawing each prompt, and the shell counts as idle only once that is answered
 * (src/console/shell-state.ts), as xterm answers it in the page. The cursor's column is the
 * visible length of the console's current line.
 */
export function answerCursorQueries(guestConsole: GuestConsole, cols: number): () => void {
  return guestConsole.onOutput((text) => {
    let at = text.indexOf(CURSOR_QUERY);
    while (at >= 0) {
      const column = (visibleLine(guestConsole.text).length % cols) + 1;
      guestConsole.type(`\x1b[1;${column}R`);
      at = text.indexOf(CURSOR_QUERY, at + CURSOR_QUERY.length);
    }
  });
}

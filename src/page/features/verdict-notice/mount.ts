import { commandNotices, noticeRows, watchCommands } from "../../../console";
import type { PageContext } from "../context";
import { noticeAbovePrompt } from "./insertion";

/** A command's connections may take this long to close before its notices are written anyway. */
const SETTLE_LIMIT_MS = 2_000;

/**
 * The verdict notice: after each command in the terminal (typed by a person or by a scenario),
 * one line per refusal, or per body the upstream cut short, with its code and reason, written
 * above the next prompt. A client prints "CONNECT tunnel failed, response 403"; this says why.
 */
export function mount(ctx: PageContext): void {
  const shown: string[] = [];
  ctx.expose("verdictNotice", { shown: () => [...shown] });
  const xterm = ctx.terminal.terminal;
  ctx.guest.then(
    (guest) => {
      watchCommands(
        guest.console,
        ctx.log,
        (window) => {
          const notices = commandNotices(window.events);
          if (notices.length === 0) return;
          // Once what is queued has been drawn (the sequence moves relative to the cursor when it is
          // read, so output arriving in between cannot misplace it).
          xterm.write("", () => {
            const screen = xterm.buffer.active;
            if (screen.type !== "normal") return; // a full-screen program owns the screen
            let wrappedAbove = 0;
            while (wrappedAbove < screen.cursorY && screen.getLine(screen.baseY + screen.cursorY - wrappedAbove)?.isWrapped) wrappedAbove++;
            const rows = notices.flatMap((n) => noticeRows(n.text, xterm.cols));
            xterm.write(noticeAbovePrompt(rows, { rows: xterm.rows, wrappedAbove }));
            shown.push(...notices.map((n) => n.text));
          });
        },
        { settleLimitMs: SETTLE_LIMIT_MS },
      );
    },
    () => undefined, // the boot bar reports it
  );
}

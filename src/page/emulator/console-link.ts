import { type GuestConsole, parseGuestLine } from "../../console";
import type { EventLog } from "../../log";
import type { GuestTerminal } from "../chrome/terminal";

/**
 * The terminal on the guest's serial console: the visitor's keys go to the guest once the
 * returned function says so (start-guest.ts opens it at the guest's first prompt, so that
 * nothing typed during a restore runs before the guest took its fresh clock and seed); until
 * then they wait, in order. The console's lines that report something become events.
 */
export function connectConsole(
  guestConsole: Pick<GuestConsole, "type" | "onLine">,
  terminal: Pick<GuestTerminal, "onInput">,
  log: EventLog,
): () => void {
  let waiting: string[] | null = [];
  terminal.onInput((text) => {
    if (waiting) waiting.push(text);
    else guestConsole.type(text);
  });
  guestConsole.onLine((line) => {
    const event = parseGuestLine(line);
    if (event) log.append(event);
  });
  return () => {
    const typed = waiting ?? [];
    waiting = null;
    for (const text of typed) guestConsole.type(text);
  };
}

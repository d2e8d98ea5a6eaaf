import { type GuestConsole, parseGuestLine } from "../../console";
import type { EventLog } from "../../log";
import type { GuestTerminal } from "../chrome/terminal";

/**
 * The terminal on the guest's serial console: the visitor's keys go to the guest once the
 * returned function says so (start-guest.ts opens it when the guest's network and the page's
 * CA are in place, so that a command typed at a restored guest's first prompt finds them);
 * until then they wait, in order. The console's lines that report something become events.
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

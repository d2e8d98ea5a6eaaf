import type { CommandRecord, CommandResult, GuestPort } from "../../../console";
import type { PageContext } from "../context";

/**
 * Types one command into the guest console for the lesson ("Show me", a demo step's Run, its
 * setup): one conversation at a time with the scenarios and the tour, waiting for a command
 * already running. The command watcher judges it like any other command; `act` says why
 * the page typed it (kept for the console task the page will route this through).
 */
export function runOnConsole(
  ctx: Pick<PageContext, "turns">,
  guest: GuestPort,
  command: string,
  _act: "lesson-show-me" | "lesson-demo" | "lesson-setup",
  onStarted?: (record: CommandRecord) => void,
): Promise<CommandResult> {
  return ctx.turns.take(() => guest.driver.run(command, onStarted ? { onStarted } : {}));
}

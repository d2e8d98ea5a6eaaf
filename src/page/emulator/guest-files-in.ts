import type { EventLog } from "../../log";

/**
 * Resolves once the guest's files are in (the emulator starts: `boot.progress` "start"), or
 * the guest failed: what the page's features wait for, so their code does not share the link
 * with the guest's state or image on the way to the first prompt (docs/performance.md).
 */
export function guestFilesIn(log: EventLog): Promise<void> {
  const done = (phase: string) => phase === "start" || phase === "error";
  return new Promise((resolve) => {
    if (log.ofKind("boot.progress").some((e) => done(e.phase))) return resolve();
    const stop = log.subscribe((e) => {
      if (e.kind !== "boot.progress" || !done(e.phase)) return;
      stop();
      resolve();
    });
  });
}

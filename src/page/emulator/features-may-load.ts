import type { EventLog } from "../../log";

/** The `boot.progress` "start" message of a cold boot (boot.ts writes it). */
export const COLD_BOOT_START = "booting Linux";

/**
 * Resolves when the page's features (their ~50 scripts, the services they share) may load:
 *
 * - a restored guest: once it is ready (`guestReady`: its fresh prompt is up, then its network
 *   and the page's CA). Loaded during the restore, their code shared the link with the guest's
 *   state and the CPU with unpacking it: on the 2-core test machine the restore took 0.8–0.9 s
 *   with them and 0.3–0.4 s without; loaded beside the network's code after the prompt, they
 *   held back the first command (docs/performance.md, "A first visit on localhost"). The prompt
 *   is what a visitor waits for; the panels fill in a few tenths of a second after it.
 * - a cold boot: once the guest's files are in ("start"): the boot takes seconds, and the
 *   panels need not wait for it.
 * - a guest that failed (`guestReady` rejects, or an "error" on the log), so that the page's
 *   panels still work.
 */
export function featuresMayLoad(log: EventLog, guestReady: Promise<unknown>): Promise<void> {
  const booting = (e: { phase: string; message: string }) => e.phase === "error" || (e.phase === "start" && e.message === COLD_BOOT_START);
  let stop = () => {};
  const coldBoot = new Promise<void>((resolve) => {
    if (log.ofKind("boot.progress").some(booting)) return resolve();
    stop = log.subscribe((e) => {
      if (e.kind === "boot.progress" && booting(e)) resolve();
    });
  });
  const ready = guestReady.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([ready, coldBoot]).finally(() => stop());
}

/**
 * Resolves when the page's features (their ~50 scripts, the services they share) may load:
 *
 * - a restored guest: once it is ready (`guestReady`: its fresh prompt is up, then its network
 *   and the page's CA). Loaded during the restore, their code shared the link with the guest's
 *   state and the CPU with unpacking it: on the 2-core test machine the restore took 0.8–0.9 s
 *   with them and 0.3–0.4 s without; loaded beside the network's code after the prompt, they
 *   held back the first command (docs/performance.md, "A first visit on localhost").
 *   The prompt is what a visitor waits for; the panels fill in a few tenths of a second after it.
 * - a cold boot: once its files are in and it boots (`booting`): the boot takes seconds, and
 *   the panels need not wait for it.
 * - a guest that failed (`guestReady` rejects), so that the page's panels still work.
 */
export function featuresMayLoad(guestReady: Promise<unknown>, booting: Promise<void>): Promise<void> {
  const settled = guestReady.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([settled, booting]);
}

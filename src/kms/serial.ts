/**
 * One operation at a time per key (here: per vault). A pull reads the KMS's remembered head
 * and then the cache's; a push reads both, writes, then records the new head. Interleaved,
 * a pull could see a head older than one remembered a moment later (a false rollback), and
 * two pushes on the same base could both land (a fork). Serialising them per vault rules
 * both out; different vaults still run side by side.
 */
export type Serial = <T>(key: string, run: () => Promise<T>) => Promise<T>;

export function createSerial(): Serial {
  const tails = new Map<string, Promise<unknown>>();
  return (key, run) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const result = previous.then(run, run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}

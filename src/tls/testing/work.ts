const SEARCHES = ["includes", "indexOf", "some", "every", "find", "findIndex", "filter"] as const;

/**
 * Runs `run` and sums the lengths of the arrays every array search scanned meanwhile: a
 * count of its linear-scan work (an upper bound: a search may stop early). A parser that
 * scans a growing list once per element shows up as work quadratic in its input.
 */
export function arrayScanWork<T>(run: () => T): { result: T | undefined; error: unknown; work: number } {
  const originals = SEARCHES.map((name) => Array.prototype[name]);
  let work = 0;
  SEARCHES.forEach((name, i) => {
    const original = originals[i] as (...args: unknown[]) => unknown;
    Object.defineProperty(Array.prototype, name, {
      configurable: true,
      writable: true,
      value(this: unknown[], ...args: unknown[]) {
        work += this.length;
        return original.apply(this, args);
      },
    });
  });
  try {
    return { result: run(), error: null, work };
  } catch (error) {
    return { result: undefined, error, work };
  } finally {
    SEARCHES.forEach((name, i) => {
      Object.defineProperty(Array.prototype, name, { configurable: true, writable: true, value: originals[i] });
    });
  }
}

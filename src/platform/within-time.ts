/**
 * `promise`, or a rejection saying "`what` did not happen within N s" once `ms` have passed.
 * The promise is left to settle on its own; the timer is cleared either way.
 */
export function withinTime<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

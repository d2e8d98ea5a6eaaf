/**
 * Work that must not overlap, run one task at a time in the order it was queued: a task starts
 * once the one before it settled, whether that one resolved or rejected, and its caller gets
 * its own result or error.
 */
export interface SerialQueue {
  run<T>(task: () => T | Promise<T>): Promise<T>;
  /** Tasks queued or running. */
  readonly pending: number;
  /** Settles once every task queued so far has settled (never rejects). */
  settled(): Promise<void>;
}

export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  let pending = 0;
  return {
    run<T>(task: () => T | Promise<T>): Promise<T> {
      pending++;
      const run = tail.then(task).finally(() => {
        pending--;
      });
      tail = run.catch(() => undefined);
      return run;
    },
    get pending() {
      return pending;
    },
    settled: () => tail.then(() => undefined),
  };
}

/**
 * The guest has one serial console. A scenario, an agent run, a share-link replay and the
 * tour's "type it for me" each type commands and wait for the prompt; two at once would
 * interleave their keystrokes. Each takes a turn; later ones wait in order.
 */
export interface ConsoleTurns {
  take<T>(task: () => Promise<T>): Promise<T>;
  /** True while a turn is running or waiting. */
  readonly busy: boolean;
}

export function createConsoleTurns(): ConsoleTurns {
  let tail: Promise<unknown> = Promise.resolve();
  let pending = 0;
  return {
    take<T>(task: () => Promise<T>): Promise<T> {
      pending++;
      const run = tail.then(task).finally(() => {
        pending--;
      });
      tail = run.catch(() => undefined);
      return run;
    },
    get busy() {
      return pending > 0;
    },
  };
}

import { createSerialQueue } from "../platform";

/**
 * The guest has one serial console. A scenario, an agent run, a share-link replay and the
 * tour's "type it for me" each type one or more commands through the console driver
 * (console-driver.ts), which orders single commands; a task of several commands (a row with
 * two, a run that delivers files first) takes a turn so no other task's command comes between.
 */
export interface ConsoleTurns {
  take<T>(task: () => Promise<T>): Promise<T>;
  /** True while a turn is running or waiting. */
  readonly busy: boolean;
}

export function createConsoleTurns(): ConsoleTurns {
  const queue = createSerialQueue();
  return {
    take: (task) => queue.run(task),
    get busy() {
      return queue.pending > 0;
    },
  };
}

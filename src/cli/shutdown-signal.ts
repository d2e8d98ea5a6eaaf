/** What a signal is heard on: the process, or a test's emitter. */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/**
 * Resolves with the first SIGINT or SIGTERM a long-running command (`tab proxy`, `tab relay`)
 * receives, so it can close what it holds and exit 0. Its handlers are gone by then: a second
 * Ctrl+C while the command closes gets Node's default and ends the process at once.
 */
export function untilShutdownSignal(source: SignalSource = process, signals = SHUTDOWN_SIGNALS): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handlers = signals.map((signal) => {
      const heard = () => {
        for (const [s, h] of handlers) source.off(s, h);
        resolve(signal);
      };
      return [signal, heard] as const;
    });
    for (const [s, h] of handlers) source.on(s, h);
  });
}

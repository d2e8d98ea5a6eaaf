/**
 * One list of listeners: a view, a panel, a test. A listener that throws is isolated: the
 * others still hear the value, and the error goes to `onListenerError` (by default thrown
 * again on a fresh microtask, where the host's error reporting sees it) — one broken view
 * never stops the part that emits, nor the views after it.
 */
export interface Emitter<T> {
  /** Adds a listener; what it returns removes it. Adding the same function twice keeps one. */
  subscribe(listener: (value: T) => void): () => void;
  /** Tells every listener subscribed now, in the order they subscribed. */
  emit(value: T): void;
  /** How many listeners are subscribed. */
  readonly size: number;
  /** Removes every listener. */
  clear(): void;
}

export interface EmitterOptions {
  /** Where a listener's error goes (default: rethrown on a microtask, so it is reported and stops nothing). */
  onListenerError?(error: unknown): void;
}

/** Rethrows on a fresh microtask: reported by the host (the console, Node's uncaught handler), never in the emitter's caller. */
export function reportLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

export function createEmitter<T = void>(options: EmitterOptions = {}): Emitter<T> {
  const listeners = new Set<(value: T) => void>();
  const onError = options.onListenerError ?? reportLater;
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit(value) {
      // A copy: a listener that subscribes or unsubscribes while told changes the next emit, not this one.
      for (const listener of [...listeners]) {
        try {
          listener(value);
        } catch (error) {
          onError(error);
        }
      }
    },
    get size() {
      return listeners.size;
    },
    clear() {
      listeners.clear();
    },
  };
}

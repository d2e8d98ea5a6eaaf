import type { EventKind, EventOf, LogEvent, NewEvent } from "./event";

/** A clock in milliseconds since the Unix epoch; injected so tests and replays are exact. */
export type Clock = () => number;

export type Listener = (event: LogEvent) => void;

export interface EventLog {
  /** Stamps the event with the next `seq` and the clock's time, stores it, tells subscribers. */
  append(event: NewEvent): LogEvent;
  /** Calls `listener` for each event appended from now on; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void;
  /** The events still held, oldest first. */
  events(): readonly LogEvent[];
  /** Events of one kind still held, oldest first. */
  ofKind<K extends EventKind>(kind: K): EventOf<K>[];
  /** How many older events the ring has dropped to stay within its capacity. */
  readonly dropped: number;
  /** The `seq` the next event will get (also: how many events were ever appended). */
  readonly nextSeq: number;
  readonly capacity: number;
}

export interface EventLogOptions {
  /** How many events are held at most; older ones are dropped and counted. */
  capacity?: number;
  clock?: Clock;
}

/**
 * The one event log. Bounded memory: a ring of `capacity` events, with a count of what it
 * dropped so every view can say "N older events dropped" instead of silently forgetting.
 * A listener that throws is isolated: it never stops the append or the other listeners.
 */
export function createEventLog(options: EventLogOptions = {}): EventLog {
  const capacity = options.capacity ?? 20_000;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  const clock = options.clock ?? Date.now;
  const ring: (LogEvent | undefined)[] = new Array(capacity);
  const listeners = new Set<Listener>();
  let start = 0; // index of the oldest held event
  let size = 0;
  let seq = 0;
  let dropped = 0;

  return {
    append(event) {
      const stamped = { ...event, seq: seq++, time: clock() } as LogEvent;
      if (size < capacity) {
        ring[(start + size) % capacity] = stamped;
        size++;
      } else {
        ring[start] = stamped;
        start = (start + 1) % capacity;
        dropped++;
      }
      for (const listener of listeners) {
        try {
          listener(stamped);
        } catch (error) {
          // A broken view must not break the log; report it where a developer will see it.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      return stamped;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    events() {
      const out: LogEvent[] = [];
      for (let i = 0; i < size; i++) out.push(ring[(start + i) % capacity] as LogEvent);
      return out;
    },
    ofKind(kind) {
      return this.events().filter((e): e is EventOf<typeof kind> => e.kind === kind);
    },
    get dropped() {
      return dropped;
    },
    get nextSeq() {
      return seq;
    },
    capacity,
  };
}

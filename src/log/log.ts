import { type Clock, createEmitter, systemClock } from "../platform";
import { boundEvent, DEFAULT_LOG_LIMITS, type LogLimits } from "./bound";
import type { EventKind, EventOf, LogEvent, NewEvent } from "./event";

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
  /** How many older events the ring has dropped to stay within its capacity and its bytes. */
  readonly dropped: number;
  /** The `seq` the next event will get (also: how many events were ever appended). */
  readonly nextSeq: number;
  readonly capacity: number;
  /** The size of the events held (see LogLimits), never more than `limits.maxBytes` for long. */
  readonly bytes: number;
  readonly limits: Readonly<LogLimits>;
}

export interface EventLogOptions extends Partial<LogLimits> {
  clock?: Clock;
}

function checkLimits(limits: LogLimits): void {
  for (const [name, value] of Object.entries(limits))
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  if (limits.maxEventBytes > limits.maxBytes)
    throw new RangeError(`maxEventBytes (${limits.maxEventBytes}) must not exceed maxBytes (${limits.maxBytes})`);
}

/**
 * The one event log. Bounded memory: a ring of at most `capacity` events and `maxBytes` of
 * them, each event cut to `maxEventBytes` on the way in (long strings end with a marker, the
 * event is flagged `truncated`), the oldest dropped first and counted, so every view can say
 * "N older events dropped" instead of silently forgetting.
 * A listener that throws is isolated: it never stops the append or the other listeners.
 */
export function createEventLog(options: EventLogOptions = {}): EventLog {
  const limits: LogLimits = {
    capacity: options.capacity ?? DEFAULT_LOG_LIMITS.capacity,
    maxBytes: options.maxBytes ?? DEFAULT_LOG_LIMITS.maxBytes,
    maxEventBytes: options.maxEventBytes ?? Math.min(DEFAULT_LOG_LIMITS.maxEventBytes, options.maxBytes ?? Number.POSITIVE_INFINITY),
    maxStringLength: options.maxStringLength ?? DEFAULT_LOG_LIMITS.maxStringLength,
  };
  checkLimits(limits);
  const { capacity, maxBytes } = limits;
  const clock = options.clock ?? systemClock;
  const ring: (LogEvent | undefined)[] = [];
  const sizes: number[] = [];
  // A broken view must not break the log: the emitter reports its error where a developer will see it.
  const listeners = createEmitter<LogEvent>();
  let start = 0; // index of the oldest held event
  let size = 0;
  let bytes = 0;
  let seq = 0;
  let dropped = 0;

  const dropOldest = (): void => {
    ring[start] = undefined;
    bytes -= sizes[start]!;
    start = (start + 1) % capacity;
    size--;
    dropped++;
  };

  return {
    append(event) {
      const bounded = boundEvent(event, limits);
      const stamped = { ...bounded.value, seq: seq++, time: clock(), ...(bounded.truncated ? { truncated: true } : {}) } as LogEvent;
      while (size > 0 && (size === capacity || bytes + bounded.size > maxBytes)) dropOldest();
      const at = (start + size) % capacity;
      ring[at] = stamped;
      sizes[at] = bounded.size;
      bytes += bounded.size;
      size++;
      listeners.emit(stamped);
      return stamped;
    },
    subscribe: (listener) => listeners.subscribe(listener),
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
    get bytes() {
      return bytes;
    },
    capacity,
    limits,
  };
}

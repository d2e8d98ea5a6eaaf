/**
 * The log's bounds (a flood of requests with 15 KiB heads must not bloat the page).
 * Sizes are counted in UTF-16 code units of the event's content, which is what a string costs
 * in memory (at most) and about what its JSON line costs in bytes.
 */
export interface LogLimits {
  /** How many events the ring holds at most. */
  capacity: number;
  /** The total size of the events held; the oldest are dropped (and counted) to stay under it. */
  maxBytes: number;
  /** The size one event may take; past it its longest strings are cut further and long lists shortened. */
  maxEventBytes: number;
  /** The longest string kept in an event; a longer one is cut and ends with a marker saying how much. */
  maxStringLength: number;
}

export const DEFAULT_LOG_LIMITS: Readonly<LogLimits> = {
  capacity: 20_000,
  maxBytes: 8 * 1024 * 1024,
  maxEventBytes: 16 * 1024,
  maxStringLength: 2048,
};

/** Strings are never cut below this: enum values, codes, hashes and short ids always survive. */
const MIN_KEPT = 80;
/** What a number, boolean or null, and each key or item's punctuation, is counted as. */
const SCALAR_SIZE = 8;
const ENTRY_OVERHEAD = 4;

/** The marker that ends a cut string: what was kept, then how many characters were not. */
export const truncationMarker = (cut: number): string => `…[${cut} more characters]`;
/** The last item of a shortened list of strings (or the value of a shortened record's last key). */
export const droppedEntriesMarker = (dropped: number): string => `…[${dropped} more entries]`;
const DROPPED_KEY = "…";

export interface Bounded<T> {
  value: T;
  /** The size of `value`, as counted against the ring's maxBytes. */
  size: number;
  /** Whether anything was cut. */
  truncated: boolean;
}

function cutString(text: string, keep: number): string {
  // Never split a surrogate pair: a lone half would be a character the sender did not send.
  let end = keep;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + truncationMarker(text.length - end);
}

interface WalkState {
  size: number;
  truncated: boolean;
  /** The length of every string and key met, for a measuring pass (null when building). */
  lengths: number[] | null;
}

const keptLength = (length: number, cap: number): number => (length > cap ? cap + truncationMarker(length - cap).length : length);

/**
 * One pass over a value. Measuring (state.lengths set): counts everything but the strings'
 * content, whose lengths it collects. Building: strings longer than `cap` are cut; list items
 * and record entries past `budget` are dropped and replaced by one marker. The object at the
 * top is the event (every field kept); objects inside are records (headers), lists hold scalars.
 */
function walk(value: unknown, cap: number, budget: number, top: boolean, state: WalkState): unknown {
  const measuring = state.lengths !== null;
  if (typeof value === "string") {
    state.size += 2;
    if (state.lengths) {
      state.lengths.push(value.length);
      return value;
    }
    state.size += keptLength(value.length, cap);
    return value.length > cap ? cutString(value, cap) : value;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    state.size += 2;
    for (let i = 0; i < value.length; i++) {
      if (state.size > budget) {
        state.truncated = true;
        if (value.every((item) => typeof item === "string")) out.push(droppedEntriesMarker(value.length - i));
        state.size += SCALAR_SIZE;
        break;
      }
      state.size += 1;
      const item = walk(value[i], cap, budget, false, state);
      if (!measuring) out.push(item);
    }
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    const entries = Object.entries(value);
    state.size += 2;
    for (let i = 0; i < entries.length; i++) {
      const [key, item] = entries[i]!;
      if (!top && state.size > budget) {
        state.truncated = true;
        if (entries.every(([, v]) => typeof v === "string")) out[DROPPED_KEY] = droppedEntriesMarker(entries.length - i);
        state.size += SCALAR_SIZE;
        break;
      }
      state.size += ENTRY_OVERHEAD;
      if (state.lengths) state.lengths.push(key.length);
      else state.size += keptLength(key.length, cap);
      const kept = walk(item, cap, budget, false, state);
      if (!measuring) out[key.length > cap ? cutString(key, cap) : key] = kept;
    }
    return out;
  }
  state.size += SCALAR_SIZE;
  return value;
}

/**
 * An event within the limits: each string at most `maxStringLength` (plus its marker), and the
 * whole at most about `maxEventBytes`, by cutting every string to a lower cap (halved until it
 * fits, never below 80 characters) and then dropping record entries and list items past the
 * budget. One pass measures (collecting string lengths, so trying a cap costs no walk), one
 * builds: the work is linear in the number of strings and entries, and independent of how
 * long the strings are. An event within the limits is stored as it came.
 */
export function boundEvent<T extends object>(event: T, limits: Pick<LogLimits, "maxEventBytes" | "maxStringLength">): Bounded<T> {
  const measured: WalkState = { size: 0, truncated: false, lengths: [] };
  walk(event, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, true, measured);
  const lengths = measured.lengths!;
  const sizeAt = (cap: number): number => {
    let size = measured.size;
    for (const length of lengths) size += keptLength(length, cap);
    return size;
  };
  let cap = Math.max(MIN_KEPT, limits.maxStringLength);
  let size = sizeAt(cap);
  if (size <= limits.maxEventBytes && lengths.every((length) => length <= cap)) return { value: event, size, truncated: false };
  while (size > limits.maxEventBytes && cap > MIN_KEPT) {
    cap = Math.max(MIN_KEPT, Math.floor(cap / 2));
    size = sizeAt(cap);
  }
  const built: WalkState = { size: 0, truncated: true, lengths: null };
  const value = walk(event, cap, limits.maxEventBytes, true, built) as T;
  return { value, size: built.size, truncated: true };
}

import { toHex } from "../bytes";
import { normalizeHost } from "./host";

/**
 * One hour: long enough for a guest's client to reuse its ticket file across the runs of a
 * demo, short enough that a leaked ticket file is soon worthless. The store lives only as
 * long as the page session (and its CA) anyway; RFC 8446 §4.6.1 allows up to 7 days.
 */
export const DEFAULT_TICKET_LIFETIME_SECONDS = 3600;
/** Enough for every host a session talks to, several times over; the oldest ticket goes first. */
export const DEFAULT_TICKET_CAPACITY = 256;

/** What the server remembers about a ticket it issued; the client holds only its identity. */
export interface TicketEntry {
  psk: Uint8Array;
  /** The CONNECT host it was issued under (normalized): it resumes only inside a CONNECT to that host. */
  host: string;
  alpn: string | null;
  /** The leaf the client verified in the full handshake the ticket descends from. */
  certFingerprint: string;
  /** Milliseconds, on the store's clock. */
  issuedAt: number;
  ageAdd: number;
  lifetimeSeconds: number;
}

export interface TicketStoreOptions {
  capacity?: number;
  lifetimeSeconds?: number;
  /** Milliseconds since the epoch; injected so tests control expiry. */
  now?: () => number;
}

/**
 * The server-side store of session tickets (RFC 8446 §4.6.1): the ticket the client gets is
 * an opaque random identity, a key into this map, never the state itself. In memory only,
 * bounded, and each ticket is used at most once.
 */
export class TicketStore {
  private readonly entries = new Map<string, TicketEntry>();
  private issued = 0;
  readonly capacity: number;
  readonly lifetimeSeconds: number;
  readonly now: () => number;

  constructor(options: TicketStoreOptions = {}) {
    this.capacity = options.capacity ?? DEFAULT_TICKET_CAPACITY;
    this.lifetimeSeconds = options.lifetimeSeconds ?? DEFAULT_TICKET_LIFETIME_SECONDS;
    this.now = options.now ?? Date.now;
  }

  /** A ticket_nonce value never given before by this store (§4.6.1: unique per ticket of a connection; here, of the store). */
  nextNonce(): number {
    return this.issued++ >>> 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Remembers a ticket under `identity`; past the capacity the oldest one is dropped (a Map keeps insertion order). */
  add(identity: Uint8Array, entry: Omit<TicketEntry, "issuedAt" | "lifetimeSeconds">): TicketEntry {
    const stored: TicketEntry = {
      ...entry,
      host: normalizeHost(entry.host),
      issuedAt: this.now(),
      lifetimeSeconds: this.lifetimeSeconds,
    };
    this.entries.set(toHex(identity), stored);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return stored;
  }

  /**
   * Takes the ticket `identity` if it may resume inside a CONNECT to `host`: it is removed
   * at once, so it cannot be used twice even by two handshakes racing. An expired ticket is
   * dropped; a ticket of another host is left alone (and not used).
   */
  take(identity: Uint8Array, host: string): TicketEntry | null {
    const key = toHex(identity);
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.now() >= entry.issuedAt + entry.lifetimeSeconds * 1000) {
      this.entries.delete(key);
      return null;
    }
    if (entry.host !== normalizeHost(host)) return null;
    this.entries.delete(key);
    return entry;
  }
}

import { readFileSync } from "node:fs";

/**
 * What one client can make the relay hold (docs/limits.md, "The relay"). Every cap is answered
 * with a Wisp CLOSE reason (ConnThrottled for a cap, TransferTimeout for an idle stream) or,
 * before the upgrade, an HTTP status; never a crash, a stall or unbounded memory.
 */
export interface RelayLimits {
  /** WebSockets open at once from one client address. */
  websocketsPerClient: number;
  /** WebSockets open at once, all clients together. */
  websocketsTotal: number;
  /** Streams open at once on one WebSocket. */
  streamsPerWebsocket: number;
  /** Streams open at once, all clients together (each holds a file descriptor). */
  streamsTotal: number;
  /** Streams one client address may open per second (sustained), and in a burst. */
  streamsPerSecond: number;
  streamBurst: number;
  /** A stream with no byte either way for this long is closed (TransferTimeout). */
  idleTimeoutMs: number;
  /** What the relay holds for a slow destination, per stream / per WebSocket / in all, in bytes
   * (each frame also costs FRAME_OVERHEAD_BYTES). */
  inboundBytesPerStream: number;
  inboundBytesPerWebsocket: number;
  inboundBytesTotal: number;
  /** What the relay reads ahead from a destination before pausing it, per stream. */
  outboundBytesPerStream: number;
  /** A WebSocket whose unsent bytes pass this stops reading its destinations until half is sent… */
  websocketSendHighWater: number;
  /** …and one that passes this (a client that stopped reading) is closed. */
  websocketSendLimit: number;
}

/** What one queued frame costs besides its payload (its ArrayBuffer, views and queue slot). */
export const FRAME_OVERHEAD_BYTES = 256;
/**
 * The largest WebSocket message the relay reads (ws's maxPayload): a Wisp packet carries a few
 * KiB (a TLS record is 16 KiB). A larger one closes that client's WebSocket with 1009
 * (connection.ts), and only it.
 */
export const MAX_MESSAGE_BYTES = 256 * 1024;
/**
 * Pongs a WebSocket may have unsent (a client that pings and never reads) before it is cut, as
 * ws's own automatic pong bounds them: pongs cost the relay memory, not the client.
 */
export const UNSENT_PONGS_LIMIT = 64;
/** The frames a stream may send before the relay's next CONTINUE (wisp-js's grant). */
export const FRAMES_GRANTED = 128;
/**
 * The frames the byte budgets below are sized for: four grants. The relay grants anew only once
 * the client has used its last grant (stream.ts, grantIfDue), so a client that keeps to
 * CONTINUE has at most about one grant queued: 128 frames at most in 20 uploads of 64 MiB at
 * up to 0.5 GB/s on loopback. The budgets hold four, so that frames still on their way under an
 * earlier grant never push a compliant client over. The relay's old schedule granted after every
 * half grant written. Under it, CONTINUEs crossed a fast client's frames, and a client keeping
 * to every CONTINUE it read queued 382 frames and more (docs/limits.md, "The relay"). A client
 * is judged on the sum of its grants (grants.ts), not on this count.
 */
export const FRAMES_QUEUED_LIMIT = 4 * FRAMES_GRANTED;

const MiB = 1024 * 1024;
/**
 * The largest DATA payload a well-behaved client sends: one TLS record (16 KiB of plaintext
 * plus its header, padding and tag). The byte budgets below hold FRAMES_QUEUED_LIMIT of these,
 * so a client that keeps to CONTINUE is not throttled for sending full records fast to a
 * destination that reads slowly.
 */
export const LARGEST_EXPECTED_FRAME_BYTES = 16 * 1024 + 512;

export const DEFAULT_RELAY_LIMITS: RelayLimits = {
  websocketsPerClient: 32,
  websocketsTotal: 256,
  streamsPerWebsocket: 32,
  streamsTotal: 512,
  streamsPerSecond: 50,
  streamBurst: 100,
  idleTimeoutMs: 120_000,
  // Four grants of full TLS records (512 × 16.75 KiB with overhead, 8.4 MiB), rounded up…
  inboundBytesPerStream: 9 * MiB,
  // …and two such streams on one WebSocket.
  inboundBytesPerWebsocket: 18 * MiB,
  inboundBytesTotal: 64 * MiB,
  outboundBytesPerStream: 128 * 1024,
  websocketSendHighWater: 512 * 1024,
  websocketSendLimit: 8 * MiB,
};

/** Descriptors kept for the listening socket, stdio, the runtime and new clients' handshakes. */
const RESERVED_DESCRIPTORS = 64;

/**
 * The process's soft limit on open files (Linux: /proc/self/limits), or null where unknown.
 * Each WebSocket and each stream holds one descriptor.
 */
export function descriptorLimit(read: (path: string) => string = (path) => readFileSync(path, "utf8")): number | null {
  try {
    const line = read("/proc/self/limits")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    return soft === undefined || !/^\d+$/.test(soft) ? null : Number(soft);
  } catch {
    return null;
  }
}

/**
 * The limits with the stream and WebSocket totals lowered, if need be, so that together they
 * stay below the descriptor limit: one client can never make the relay run out of them.
 */
export function fitToDescriptors(limits: RelayLimits, descriptors: number | null): RelayLimits {
  if (descriptors === null) return limits;
  const room = Math.max(16, descriptors - RESERVED_DESCRIPTORS);
  const websocketsTotal = Math.min(limits.websocketsTotal, Math.floor(room / 4));
  const streamsTotal = Math.min(limits.streamsTotal, room - websocketsTotal);
  return { ...limits, websocketsTotal, streamsTotal };
}

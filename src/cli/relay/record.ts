import { escapeJsonText, type VerdictCode } from "../../log";

/**
 * What `npx tab relay` prints on stdout for each stream: one JSON line, written when the stream
 * closes. The relay moves TCP bytes only, so this is all it knows: no URL, no header, no SNI.
 */
export interface StreamRecord {
  kind: "relay.stream";
  /** When the client asked for the stream (ISO 8601). */
  time: string;
  /** The WebSocket client's address. */
  client: string;
  /** wisp-js's id of the WebSocket connection, and the stream's Wisp id inside it. */
  connection: string;
  stream: number;
  /** The destination as the client named it (hostile text: escaped when printed). */
  name: string;
  /** The checked address the relay connected to; null when it connected nowhere. */
  address: string | null;
  port: number;
  /** True when the relay refused the stream before any connection (`code` and `why` say why). */
  refused: boolean;
  /** `served`, a refusal (`port-not-allowed`, `private-address`, `bad-request`) or `upstream-error`. */
  code: VerdictCode;
  /** The reason for a refusal or a failure; null for a stream that ran and closed. */
  why: string | null;
  bytes: { toUpstream: number; fromUpstream: number };
  durationMs: number;
}

/** The record as one line; invisible and layout-changing characters escaped, as the CLI's other lines. */
export function recordLine(record: RelayRecord): string {
  return `${escapeJsonText(JSON.stringify(record))}\n`;
}

/** A WebSocket upgrade the relay refused (origin, token, too many WebSockets): one line, before any session. */
export interface UpgradeRefusalRecord {
  kind: "relay.refused";
  time: string;
  client: string;
  /** The request's Origin header as sent (hostile text: escaped when printed); null when absent. */
  origin: string | null;
  status: number;
  code: VerdictCode;
  why: string;
}

/**
 * A WebSocket the relay closed on its own, one line each: a message past the size limit (1009),
 * text that is not UTF-8 (1007), another WebSocket protocol error or a failed Wisp v2 handshake
 * (1002), or a client that stopped reading (cut without a close frame it would never read).
 * Only that WebSocket ends; the relay and every other client go on.
 */
export interface WebSocketClosedRecord {
  kind: "relay.closed";
  time: string;
  client: string;
  /** wisp-js's id of the WebSocket connection, as in its streams' records. */
  connection: string;
  /** The WebSocket close code sent; null when the connection was cut without one. */
  status: number | null;
  code: VerdictCode;
  why: string;
}

export type RelayRecord = StreamRecord | UpgradeRefusalRecord | WebSocketClosedRecord;

import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { logging } from "@mercuryworkshop/wisp-js/server";
import { type WebSocket, WebSocketServer } from "ws";
import { type AdmissionRules, createAdmitter } from "./admission";
import type { StreamCheck } from "./check";
import { RelayConnection } from "./connection";
import { MAX_MESSAGE_BYTES } from "./limits";
import type { RelayRecord } from "./record";
import type { RelaySocket } from "./socket";

/**
 * The relay's listening side: an HTTP server whose WebSocket upgrades on a path ending in `/`
 * (as Wisp clients expect) become Wisp connections, once admitted (admission.ts: the page's
 * origin, the token, WebSockets per client); a refused upgrade gets its HTTP status and one
 * `relay.refused` line before any WebSocket exists. Everything else is answered with a short
 * error: no other protocol (wisp-js's "wsproxy" paths included) is spoken here.
 */

export interface RelayOptions {
  host: string;
  port: number;
  check: StreamCheck;
  admission: AdmissionRules;
  /** Each stream, once, when it closes; each refused upgrade, once; each WebSocket the relay closed, once. */
  report: (record: RelayRecord) => void;
  /** An error of the listening side itself (not of one client): one line, at most one a minute per kind. */
  warn: (line: string) => void;
}

export interface Relay {
  /** `ws://host:port/`, with the port actually bound. */
  url: string;
  /** Stops listening, closes every stream (CLOSE) and WebSocket (1001), waits for them. */
  close(): Promise<void>;
}

/** How long shutdown waits for streams and WebSockets to close before cutting them. */
const SHUTDOWN_GRACE_MS = 2_000;
/** How often the same error of the listening side may print a line (an accept failure can repeat fast). */
const SERVER_ERROR_LINE_INTERVAL_MS = 60_000;
const STATUS_TEXT: Record<number, string> = { 401: "Unauthorized", 403: "Forbidden", 429: "Too Many Requests", 503: "Service Unavailable" };
const WISP_V2_PROTOCOL_HEADER = "sec-websocket-protocol";

export async function startRelay(options: RelayOptions): Promise<Relay> {
  // wisp-js logs every connection and stream at INFO on stdout, where the stream lines go.
  logging.set_level(logging.ERROR);
  const sockets = new Set<RelaySocket>();
  const connections = new Set<RelayConnection>();
  const admitter = createAdmitter(options.admission);
  const context = {
    check: options.check,
    report: options.report,
    sockets,
    limits: options.admission.limits,
    admitter,
    relayInbound: { total: 0 },
  };
  // Pongs are the connection's (it bounds those a client leaves unread).
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, autoPong: false });

  const http = createServer((_request, response) => {
    response.writeHead(426, { "content-type": "text/plain; charset=utf-8", upgrade: "websocket" });
    response.end("This is a Wisp relay: open a WebSocket to this address (path ending in /) with a Wisp client.\n");
  });
  http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined); // a client that vanishes mid-handshake is not an error here
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (!path.endsWith("/")) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const admission = admitter.admit(request);
    if (!admission.ok) {
      const body = `${admission.why}\n`;
      socket.end(
        `HTTP/1.1 ${admission.status} ${STATUS_TEXT[admission.status] ?? "Refused"}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      options.report({
        kind: "relay.refused",
        time: new Date().toISOString(),
        client: admission.client,
        origin: request.headers.origin ?? null,
        status: admission.status,
        code: admission.code,
        why: admission.why,
      });
      return;
    }
    socket.once("close", admission.release);
    wss.handleUpgrade(request, socket, head, (ws) => void serve(ws, request, path, admission.client));
  });

  async function serve(ws: WebSocket, request: IncomingMessage, path: string, client: string): Promise<void> {
    ws.binaryType = "arraybuffer";
    // As wisp-js's own routeRequest: a client that offers a subprotocol speaks Wisp v2.
    const version = request.headers[WISP_V2_PROTOCOL_HEADER] ? 2 : 1;
    // No extensions offered: no UDP (never relayed), no MOTD.
    const connection = new RelayConnection(ws, path, { wisp_version: version, wisp_extensions: [] }, client, context);
    connections.add(connection);
    try {
      await connection.setup();
      await connection.run();
    } catch (error) {
      // A failed v2 handshake (closed 1002, one line), or a WebSocket that broke before it.
      connection.handshakeFailed(error);
      await connection.cleanup().catch(() => undefined);
    } finally {
      connections.delete(connection);
    }
  }

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, options.host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  // After listen, an error of the server itself (an accept that failed) must not end the process.
  const serverError = rateLimitedLines(options.warn);
  http.on("error", (error: NodeJS.ErrnoException) => serverError("the HTTP server", error));
  wss.on("error", (error: NodeJS.ErrnoException) => serverError("the WebSocket server", error));
  const bound = http.address();
  const port = typeof bound === "object" && bound ? bound.port : options.port;
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;

  async function close(): Promise<void> {
    const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
    const websockets = [...connections].map((c) => c.socket);
    const closedSockets = websockets.map(
      (ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once("close", () => resolve()))),
    );
    await Promise.all([...connections].map((c) => c.shutdown()));
    const everything = Promise.all([stopped, ...closedSockets, ...[...sockets].map((s) => s.done)]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), SHUTDOWN_GRACE_MS);
    });
    if ((await Promise.race([everything, grace])) === "late") {
      for (const ws of websockets) ws.terminate();
      for (const socket of sockets) socket.destroy();
      http.closeAllConnections();
      await everything;
    }
    clearTimeout(timer);
  }

  return { url: `ws://${shownHost}:${port}/`, close };
}

/** One line per kind of error (where, and its code), then none for a minute, then one with how many were not printed. */
function rateLimitedLines(warn: (line: string) => void): (where: string, error: NodeJS.ErrnoException) => void {
  const kinds = new Map<string, { at: number; unprinted: number }>();
  return (where, error) => {
    const key = `${where}: ${error.code ?? "other"}`;
    const now = performance.now();
    const kind = kinds.get(key);
    if (kind && now - kind.at < SERVER_ERROR_LINE_INTERVAL_MS) {
      kind.unprinted++;
      return;
    }
    const more = kind && kind.unprinted > 0 ? ` (${kind.unprinted} more since the last line)` : "";
    kinds.set(key, { at: now, unprinted: 0 });
    warn(`${where}: ${error.message}${more}; the relay goes on`);
  };
}

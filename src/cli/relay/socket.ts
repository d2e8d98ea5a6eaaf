import { createConnection, type Socket } from "node:net";
import type { WispSocket } from "@mercuryworkshop/wisp-js/server";
import { refuse, type Verdict } from "../../log";
import type { StreamCheck } from "./check";
import type { StreamRecord } from "./record";

/**
 * One Wisp stream's TCP side, in the shape wisp-js's ServerStream drives (connect, recv, send,
 * close). It replaces wisp-js's own socket so that the relay's check runs inside `connect()`,
 * before anything is sent, and the connection goes to the checked address (an IP: Node does
 * no DNS for it), never to the name. It counts bytes and reports the stream once, when closed.
 */

/** Bytes held from the destination before its socket is paused, unless the relay says otherwise. */
const DEFAULT_READ_AHEAD_BYTES = 128 * 1024;
/** How long a connect may take before the stream fails (NoResponse). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** After our FIN, how long the destination may take to close before the socket is destroyed. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Why `connect()` failed when the relay said no, or when the name did not resolve: both are
 * closed HostBlocked, so a client cannot tell a name that resolves to a private address from
 * one that does not resolve (an intranet name oracle). The stream's record keeps the difference.
 */
export class StreamRefused extends Error {
  override name = "StreamRefused";
  constructor(
    readonly verdict: Verdict,
    /** Past a cap (rate, streams): closed ConnThrottled rather than HostBlocked. */
    readonly throttled = false,
  ) {
    super(verdict.reason);
  }
}

export interface RelaySocketOptions {
  name: string;
  port: number;
  /** False for a UDP stream, which the relay never opens. */
  tcp: boolean;
  check: StreamCheck;
  /** Called once, when the stream is closed, with what happened. */
  report: (record: StreamRecord) => void;
  /** Identifies the stream in its record. */
  connection: string;
  stream: number;
  client: string;
  /** Bytes read ahead from the destination before it is paused. */
  readAheadBytes?: number;
  /** A refusal decided before the check (a cap): connect() throws it, ConnThrottled. */
  throttledBy?: Verdict;
}

export class RelaySocket implements WispSocket {
  hostname: string;
  port: number;
  private socket: Socket | null = null;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private readonly readAhead: number;
  private waiting: (() => void) | null = null;
  private ended = false;
  private closed = false;
  private address: string | null = null;
  /** What decided the stream's end: a refusal, a failure, or null for one that ran and closed. */
  private outcome: Verdict | null = null;
  private refused = false;
  /** The destination's connection failed (an 'error', e.g. a reset) rather than closing. */
  failed = false;
  private toUpstream = 0;
  private fromUpstream = 0;
  private readonly startedAt = new Date();
  private readonly started = performance.now();
  private settled: () => void = () => undefined;
  /** Resolves once the TCP side is gone (or was never opened): what shutdown waits for. */
  readonly done = new Promise<void>((resolve) => {
    this.settled = resolve;
  });

  constructor(private readonly options: RelaySocketOptions) {
    this.hostname = options.name;
    this.port = options.port;
    this.readAhead = options.readAheadBytes ?? DEFAULT_READ_AHEAD_BYTES;
  }

  async connect(): Promise<void> {
    if (this.options.throttledBy) {
      this.outcome = this.options.throttledBy;
      this.refused = true;
      throw new StreamRefused(this.options.throttledBy, true);
    }
    if (!this.options.tcp) return this.refuse(refuse("bad-request", "UDP streams are not relayed; only TCP", "proxy"));
    const decision = await this.options.check(this.options.name, this.options.port);
    if (decision.verdict.code === "upstream-error") {
      // The name did not resolve: a failure, not the relay saying no (the record says so), but
      // answered as a refusal is, so that it tells the client nothing about the name.
      this.outcome = decision.verdict;
      throw new StreamRefused(decision.verdict);
    }
    if (!decision.verdict.allowed || decision.address === undefined) return this.refuse(decision.verdict);
    if (this.closed) throw new Error("the stream was closed before its connection was made");
    const address = decision.address;
    this.address = address;
    await new Promise<void>((resolve, reject) => {
      const socket = createConnection({ host: address, port: this.options.port, noDelay: true });
      this.socket = socket;
      let connected = false;
      socket.setTimeout(CONNECT_TIMEOUT_MS, () => {
        if (!connected) socket.destroy(Object.assign(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`), { code: "ETIMEDOUT" }));
      });
      socket.once("connect", () => {
        connected = true;
        socket.setTimeout(0);
        resolve();
      });
      socket.on("data", (chunk: Buffer) => {
        if (this.closed) return; // closed: read and dropped, so the destination can finish
        this.fromUpstream += chunk.length;
        this.queue.push(chunk);
        this.queuedBytes += chunk.length;
        if (this.queuedBytes >= this.readAhead) socket.pause();
        this.wake();
      });
      socket.on("error", (error: NodeJS.ErrnoException) => {
        this.failed = true;
        this.outcome ??= refuse("upstream-error", `${address} port ${this.options.port}: ${error.code ?? error.message}`, "proxy");
        if (!connected) reject(error);
      });
      socket.on("end", () => this.finish());
      socket.on("close", () => {
        this.finish();
        this.socket = null;
        this.settled();
      });
    });
  }

  async recv(): Promise<Uint8Array | null> {
    for (;;) {
      const chunk = this.queue.shift();
      if (chunk !== undefined) {
        this.queuedBytes -= chunk.length;
        if (this.queuedBytes < this.readAhead / 2 && this.socket?.isPaused()) this.socket.resume();
        return chunk;
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  async send(data: Uint8Array): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.destroyed || this.closed) return;
    this.toUpstream += data.length;
    // Resolves when written (or failed: the error is reported by the "error" listener).
    await new Promise<void>((resolve) => socket.write(data, () => resolve()));
  }

  /** Backpressure is the queue's own (see readAheadBytes); wisp-js's pause/resume calls are not needed. */
  pause(): void {}
  resume(): void {}

  /** Called by wisp-js on every way a stream ends; idempotent. Reports the stream the first time. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.finish();
    const socket = this.socket;
    this.queue.length = 0;
    this.queuedBytes = 0;
    if (socket) {
      socket.resume();
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    } else this.settled();
    this.options.report(this.record());
  }

  /** What ended a stream that was running: a cap or the idle timeout (kept for its record). */
  endedBy(verdict: Verdict): void {
    this.outcome ??= verdict;
    this.refused = true;
  }

  /** Shutdown's last resort: the destination did not close after our FIN. */
  destroy(): void {
    this.socket?.destroy();
  }

  private refuse(verdict: Verdict): never {
    this.outcome = verdict;
    this.refused = true;
    throw new StreamRefused(verdict);
  }

  private finish(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  private record(): StreamRecord {
    const why = this.outcome?.reason ?? (this.address === null ? "the stream was closed before its destination was checked" : null);
    return {
      kind: "relay.stream",
      time: this.startedAt.toISOString(),
      client: this.options.client,
      connection: this.options.connection,
      stream: this.options.stream,
      name: this.options.name,
      address: this.address,
      port: this.options.port,
      refused: this.refused,
      code: this.outcome?.code ?? (this.address === null ? "upstream-error" : "served"),
      why,
      bytes: { toUpstream: this.toUpstream, fromUpstream: this.fromUpstream },
      durationMs: Math.round(performance.now() - this.started),
    };
  }
}

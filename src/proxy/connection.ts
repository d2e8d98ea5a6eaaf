import type { ByteStream } from "../bytes";
import type { NewEvent, Verdict } from "../log";
import type { HeaderList } from "./head";
import { redactHeaders, redactText, redactUrl } from "./headers";
import { ByteSource } from "./source";
import type { UpstreamPath } from "./types";

/** One guest connection's I/O: the buffered reader, the writer, and the decision recorder. */

export type DecisionMode = Extract<NewEvent, { kind: "proxy.decision" }>["mode"];

export interface DecisionRecord {
  mode: DecisionMode;
  method: string;
  target: string;
  status: number;
  bytes: number;
  headers?: HeaderList;
  verdict: Verdict;
  tlsSession?: string;
  upstream?: string;
  upstreamPath?: UpstreamPath;
  /** The upstream's body ended early after the status was sent (the decision's `bodyCut`). */
  bodyCut?: boolean;
}

export class Connection {
  readonly source: ByteSource;
  /** Set once a CONNECT tunnel runs on this connection ("host:port"), for the idle note. */
  tunnelTarget: string | null = null;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private closed = false;
  private pendingWrites = 0;
  private written = 0;

  /** `onTraffic` hears of every chunk read ("in") or written ("out"): the timeouts' clocks. */
  constructor(
    stream: ByteStream,
    private readonly onTraffic: (direction: "in" | "out") => void = () => undefined,
  ) {
    this.reader = stream.readable.getReader();
    this.writer = stream.writable.getWriter();
    this.source = new ByteSource(this.reader, () => onTraffic("in"));
  }

  /** Bytes handed to the writer so far (whether a reply has started). */
  get bytesWritten(): number {
    return this.written;
  }

  async write(...parts: Uint8Array[]): Promise<void> {
    for (const part of parts) if (part.length > 0) await this.send(part);
  }

  private async send(chunk: Uint8Array): Promise<void> {
    this.onTraffic("out");
    this.written += chunk.length;
    this.pendingWrites++;
    try {
      await this.writer.write(chunk);
    } finally {
      this.pendingWrites--;
    }
  }

  /** The raw rest of the connection, for a tunnel: buffered bytes first, then the socket. */
  rawStream(): ByteStream {
    const writer = this.writer;
    return {
      readable: this.source.rest(),
      writable: new WritableStream<Uint8Array>({
        write: (chunk) => this.send(chunk),
        close: () => this.close(),
        abort: (reason) => writer.abort(reason),
      }),
    };
  }

  /** Ends the connection; safe to call twice and after the peer went away. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.writer.close();
    } catch {
      // The peer already went away; nothing is left to flush.
    }
    try {
      await this.reader.cancel();
    } catch {
      // Already cancelled or errored.
    }
  }

  /**
   * Ends a connection that timed out: reading stops at once (a pending read ends); the
   * writer is closed, or aborted when a write or the close itself is stuck on a peer that
   * stopped reading.
   */
  expire(): void {
    const stuck = this.pendingWrites > 0 || this.closed;
    this.reader.cancel().catch(() => undefined);
    if (stuck) this.writer.abort(new Error("the connection timed out")).catch(() => undefined);
    else void this.close();
  }
}

/** Builds the one canonical decision event, with secrets redacted. */
export function decisionEvent(id: string, record: DecisionRecord, durationMs: number): NewEvent {
  return {
    kind: "proxy.decision",
    id,
    mode: record.mode,
    method: record.method,
    target: redactUrl(record.target),
    status: record.status,
    bytes: record.bytes,
    durationMs: Math.max(0, durationMs),
    ...(record.headers ? { headers: redactHeaders(record.headers) } : {}),
    ...(record.tlsSession === undefined ? {} : { tlsSession: record.tlsSession }),
    ...(record.upstream === undefined || record.upstream === record.target ? {} : { upstream: redactUrl(record.upstream) }),
    ...(record.upstreamPath === undefined ? {} : { upstreamPath: record.upstreamPath }),
    ...(record.bodyCut ? { bodyCut: true as const } : {}),
    ...record.verdict,
    reason: redactText(record.verdict.reason),
    ...(record.verdict.wouldRefuseReason === undefined ? {} : { wouldRefuseReason: redactText(record.verdict.wouldRefuseReason) }),
  };
}

import type { ByteStream } from "../bytes";
import type { EventLog, EventOf } from "../log";
import { systemTimers, type Timers } from "../platform";
import type { SessionCa } from "./ca";
import { AlertDescription, alertLabel } from "./constants";
import { asFailure, TlsFailure } from "./failure";
import { CIPHER_NAME, type Established, type HandshakeProgress, serverHandshake } from "./handshake";
import { RecordLayer } from "./record-layer";
import { TicketStore, type TicketStoreOptions } from "./ticket-store";
import { type KeyUpdateLimit, openTunnel } from "./tunnel";

/** The CONNECT that opened the tunnel: the allowed host, its port, and the request id. */
export interface ConnectTarget {
  host: string;
  port: number;
  /** The CONNECT request's id; it becomes the TLS session id (`tls.session.id`, `proxy.decision.tlsSession`). */
  id: string;
}

export interface TlsTerminatorOptions {
  ca: SessionCa;
  log: EventLog;
  timers?: Timers;
  /** How long a client may take to complete the handshake; default 10 s. */
  handshakeTimeoutMs?: number;
  /** How many KeyUpdates a client may send per so many records; default 8 per 1024 (DEFAULT_KEY_UPDATE_LIMIT). */
  keyUpdates?: KeyUpdateLimit;
  /**
   * Session tickets (RFC 8446 §4.6.1): how many are kept, for how long, and the clock (ms).
   * The store belongs to this terminator, so to one page session and its CA, in memory only.
   */
  tickets?: TicketStoreOptions;
  /**
   * Resume with psk_ke (the ticket's PSK alone, no (EC)DHE, so no forward secrecy) when a client
   * offers it and psk_dhe_ke cannot be used without a HelloRetryRequest. Only for a link nobody
   * but this process can record: the guest's in-process NIC, never a real socket
   * (docs/decisions/0024-psk-ke-on-the-guest-link.md). Default false.
   */
  resumeWithoutKeyExchange?: boolean;
}

export interface TlsTerminator {
  /**
   * Runs the server handshake on the raw tunnel bytes. Resolves to the plaintext stream
   * (reads: the client's application data; writes: encrypted back to it), or null after
   * refusing: alert sent, `tls.verdict` logged, raw stream closed. Never rejects.
   */
  terminate(raw: ByteStream, connect: ConnectTarget): Promise<ByteStream | null>;
}

/**
 * Ends a refused session: stop reading, send the alert (user_canceled is followed by
 * close_notify), close the raw writable. A peer that does not read could stall the alert,
 * so after a grace period the raw stream is aborted instead: the refusal never hangs.
 */
async function refuse(layer: RecordLayer, failure: TlsFailure, timers: Timers, graceMs: number): Promise<void> {
  await layer.abortReading(failure);
  let grace: unknown;
  const graceOver = new Promise<"aborted">((resolve) => {
    grace = timers.setTimeout(() => resolve("aborted"), graceMs);
  });
  const graceful = (async () => {
    if (failure.alert) await layer.sendAlert(failure.alert);
    if (failure.alert === "user_canceled") await layer.sendAlert("close_notify");
    await layer.closeWriter();
    return "closed" as const;
  })();
  if ((await Promise.race([graceful, graceOver])) === "aborted") await layer.abort(failure);
  timers.clearTimeout(grace);
}

export function createTlsTerminator(options: TlsTerminatorOptions): TlsTerminator {
  const { ca, log } = options;
  const timers = options.timers ?? systemTimers;
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? 10_000;
  const tickets = new TicketStore(options.tickets);

  return {
    async terminate(raw, connect) {
      const reader = raw.readable.getReader();
      const writer = raw.writable.getWriter();
      const layer = new RecordLayer(reader, writer);
      const progress: HandshakeProgress = {
        sni: null,
        alpn: null,
        certFingerprint: null,
        helloRetry: false,
        group: null,
        resumed: false,
        pskMode: null,
      };
      let requests = 0;
      let keyUpdates = 0;
      const session = (phase: EventOf<"tls.session">["phase"], established: boolean): void => {
        log.append({
          kind: "tls.session",
          id: connect.id,
          phase,
          connectHost: connect.host,
          sni: progress.sni,
          cipher: established ? CIPHER_NAME : null,
          group: established ? progress.group : null,
          alpn: progress.alpn,
          certFingerprint: progress.certFingerprint,
          requests,
          keyUpdates,
          helloRetry: progress.helloRetry,
          resumed: progress.resumed,
          ...(progress.resumed && progress.pskMode ? { pskMode: progress.pskMode } : {}),
        });
      };
      const verdict = (failure: TlsFailure, alertSent: boolean): void => {
        log.append({
          kind: "tls.verdict",
          session: connect.id,
          target: `${connect.host}:${connect.port}`,
          alert: alertSent && failure.alert ? alertLabel(AlertDescription[failure.alert]) : null,
          allowed: false,
          code: failure.code,
          reason: failure.reason,
          by: failure.by,
        });
      };

      session("handshake", false);
      const handshake = serverHandshake({
        layer,
        connectHost: connect.host,
        leafFor: (host) => ca.leafFor(host),
        leafScheme: ca.leafScheme,
        tickets,
        resumeWithoutKeyExchange: options.resumeWithoutKeyExchange ?? false,
        progress,
      });
      handshake.catch(() => undefined); // after a timeout nobody awaits it; it ends when reading is aborted
      let timer: unknown;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = timers.setTimeout(
          () => reject(new TlsFailure("user_canceled", "tls-error", `the handshake did not complete within ${handshakeTimeoutMs} ms`)),
          handshakeTimeoutMs,
        );
      });
      let established: Established;
      try {
        established = await Promise.race([handshake, timeout]);
      } catch (error) {
        timers.clearTimeout(timer);
        const failure = asFailure(error);
        verdict(failure, failure.alert !== null);
        session("failed", false);
        await refuse(layer, failure, timers, handshakeTimeoutMs);
        return null;
      }
      timers.clearTimeout(timer);

      // The request count is read from the one log: proxy.decision events that name this session.
      const unsubscribe = log.subscribe((event) => {
        if (event.kind === "proxy.decision" && event.tlsSession === connect.id) requests++;
      });
      session("established", true);
      return openTunnel(
        layer,
        established,
        {
          keyUpdated: () => {
            keyUpdates++;
          },
          failed: (failure) => {
            unsubscribe();
            verdict(failure, failure.alert !== null);
            session("failed", true);
          },
          closed: () => {
            unsubscribe();
            session("closed", true);
          },
        },
        options.keyUpdates ? { keyUpdates: options.keyUpdates } : {},
      );
    },
  };
}

/** The CONNECT as the proxy's tunnel hook sees it: the target plus its `serveTunnel`. */
export interface TunnelOpenTarget extends ConnectTarget {
  serveTunnel(plain: ByteStream, sessionId: string): Promise<void>;
}

/**
 * The proxy's `tunnel` hook, for the page and the CLI alike: terminate, then serve the
 * decrypted requests with the CONNECT id as the TLS session id (so `proxy.decision.tlsSession`
 * matches `tls.session.id` and the session's request count). Resolves when the tunnel is over.
 */
export function tlsTunnelHook(terminator: TlsTerminator): { open(raw: ByteStream, connect: TunnelOpenTarget): Promise<void> } {
  return {
    async open(raw, connect) {
      const plain = await terminator.terminate(raw, { host: connect.host, port: connect.port, id: connect.id });
      if (plain) await connect.serveTunnel(plain, connect.id);
    },
  };
}

import type { Decider, VerdictCode } from "../log";
import { messageOf } from "../platform";
import type { AlertName } from "./constants";

/**
 * Why a TLS session is being ended: the alert to send (null when none should or can be sent,
 * e.g. the peer already closed) and the verdict to log. Thrown inside the handshake and the
 * record layer; the terminator turns it into one alert, one `tls.verdict` and a closed stream.
 */
export class TlsFailure extends Error {
  constructor(
    readonly alert: AlertName | null,
    readonly code: VerdictCode,
    readonly reason: string,
    readonly by: Decider = "proxy",
  ) {
    super(reason);
    this.name = "TlsFailure";
  }
}

/** A protocol error by the peer: the common case, `tls-error` with the given alert. */
export const protocolError = (alert: AlertName, reason: string): TlsFailure => new TlsFailure(alert, "tls-error", reason);

/** Any error as a failure: a TlsFailure as is, anything else an internal error (a bug or an I/O fault). */
export function asFailure(error: unknown): TlsFailure {
  if (error instanceof TlsFailure) return error;
  const message = messageOf(error);
  return new TlsFailure("internal_error", "tls-error", `internal error: ${message}`);
}

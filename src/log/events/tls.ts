import { z } from "zod";
import { VerdictFields } from "./common";

/** A TLS session terminated by the page inside a CONNECT tunnel. */
export const TlsSession = z.object({
  kind: z.literal("tls.session"),
  id: z.string(),
  phase: z.enum(["handshake", "established", "closed", "failed"]),
  connectHost: z.string(),
  sni: z.string().nullable(),
  cipher: z.string().nullable(),
  /** The key exchange group, once established: "x25519" or "secp256r1". */
  group: z.string().nullable(),
  alpn: z.string().nullable(),
  certFingerprint: z.string().nullable(),
  requests: z.number().int().nonnegative(),
  /** KeyUpdates received from the client so far (RFC 8446 §4.6.3). */
  keyUpdates: z.number().int().nonnegative().optional(),
  /** True when the server asked for another key share (HelloRetryRequest). */
  helloRetry: z.boolean().optional(),
  /** True when a session ticket resumed the session (no certificate sent; certFingerprint is the ticket's). */
  resumed: z.boolean().optional(),
  /**
   * On a resumed session, how its ticket's PSK was used (RFC 8446 §4.2.9): psk_dhe_ke with a
   * fresh (EC)DHE in `group`; psk_ke alone, group null (docs/decisions/0024-psk-ke-on-the-guest-link.md).
   */
  pskMode: z.enum(["psk_ke", "psk_dhe_ke"]).optional(),
});

/** A TLS-level refusal (SNI mismatch, bad ClientHello, alert sent). */
export const TlsVerdict = z.object({
  kind: z.literal("tls.verdict"),
  session: z.string(),
  target: z.string(),
  alert: z.string().nullable(),
  ...VerdictFields,
});

export const tlsEvents = [TlsSession, TlsVerdict] as const;

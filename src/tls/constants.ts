/** TLS 1.3 code points used by this server (RFC 8446 §4, §5, §6, Appendix B). */

export const ContentType = {
  changeCipherSpec: 20,
  alert: 21,
  handshake: 22,
  applicationData: 23,
} as const;

export const HandshakeType = {
  clientHello: 1,
  serverHello: 2,
  newSessionTicket: 4,
  endOfEarlyData: 5,
  encryptedExtensions: 8,
  certificate: 11,
  certificateRequest: 13,
  certificateVerify: 15,
  finished: 20,
  keyUpdate: 24,
  /** The synthetic message that replaces ClientHello1 in the transcript after a HelloRetryRequest (§4.4.1). */
  messageHash: 254,
} as const;

export const ExtensionType = {
  serverName: 0,
  supportedGroups: 10,
  signatureAlgorithms: 13,
  alpn: 16,
  preSharedKey: 41,
  earlyData: 42,
  supportedVersions: 43,
  cookie: 44,
  pskKeyExchangeModes: 45,
  keyShare: 51,
} as const;

/** PskKeyExchangeMode (RFC 8446 §4.2.9). */
export const PskKeyExchangeMode = {
  /** PSK-only key establishment: no (EC)DHE, so no forward secrecy; the server sends no key_share. */
  psk_ke: 0,
  /** The PSK mixed with a fresh (EC)DHE exchange. */
  psk_dhe_ke: 1,
} as const;
export type PskMode = keyof typeof PskKeyExchangeMode;

export const TLS13 = 0x0304;
export const LEGACY_VERSION = 0x0303;
export const TLS_AES_128_GCM_SHA256 = 0x1301;
export const GROUP_X25519 = 0x001d;
export const GROUP_SECP256R1 = 0x0017;
export const ECDSA_SECP256R1_SHA256 = 0x0403;
export const RSA_PSS_RSAE_SHA256 = 0x0804;
export const ED25519 = 0x0807;

/** TLSPlaintext.length limit (§5.1) and the TLSCiphertext limit (§5.2). */
export const MAX_PLAINTEXT = 2 ** 14;
export const MAX_CIPHERTEXT = 2 ** 14 + 256;

/** The fixed ServerHello.random that marks a HelloRetryRequest (§4.1.3): SHA-256 of "HelloRetryRequest". */
export const HELLO_RETRY_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c";

/** Alert descriptions (§6). The names are what logs and verdicts show. */
export const AlertDescription = {
  close_notify: 0,
  unexpected_message: 10,
  bad_record_mac: 20,
  record_overflow: 22,
  handshake_failure: 40,
  bad_certificate: 42,
  unsupported_certificate: 43,
  certificate_revoked: 44,
  certificate_expired: 45,
  certificate_unknown: 46,
  illegal_parameter: 47,
  unknown_ca: 48,
  access_denied: 49,
  decode_error: 50,
  decrypt_error: 51,
  protocol_version: 70,
  insufficient_security: 71,
  internal_error: 80,
  inappropriate_fallback: 86,
  user_canceled: 90,
  missing_extension: 109,
  unsupported_extension: 110,
  unrecognized_name: 112,
  bad_certificate_status_response: 113,
  unknown_psk_identity: 115,
  certificate_required: 116,
  no_application_protocol: 120,
} as const;
export type AlertName = keyof typeof AlertDescription;

/** "unrecognized_name(112)": how an alert appears in logs and verdict reasons. */
export function alertLabel(description: number): string {
  for (const [name, value] of Object.entries(AlertDescription)) if (value === description) return `${name}(${description})`;
  return `unknown(${description})`;
}

export {
  caPem,
  createSessionCa,
  DEFAULT_MAX_LEAVES,
  type LeafCertificate,
  loadSessionCa,
  type SessionCa,
  type SessionCaOptions,
} from "./ca";
export { type CaKeysUnderWay, startCaKeys } from "./cert-keys";
export { AlertDescription, type AlertName, alertLabel } from "./constants";
export { TlsFailure } from "./failure";
export { normalizeHost } from "./host";
export {
  type ConnectTarget,
  createTlsTerminator,
  type TlsTerminator,
  type TlsTerminatorOptions,
  type TunnelOpenTarget,
  tlsTunnelHook,
} from "./terminator";
export { DEFAULT_TICKET_CAPACITY, DEFAULT_TICKET_LIFETIME_SECONDS, type TicketStoreOptions } from "./ticket-store";
export { DEFAULT_KEY_UPDATE_LIMIT, type KeyUpdateLimit } from "./tunnel";

import { ByteWriter, constantTimeEqual } from "../bytes";
import type { ClientHello } from "./client-hello";
import { ExtensionType, PskKeyExchangeMode, type PskMode } from "./constants";
import { protocolError } from "./failure";
import { serializeNewSessionTicket } from "./handshake-messages";
import { sha256 } from "./hkdf";
import { type KeyExchangeGroup, preferredGroup, SERVER_GROUPS } from "./key-exchange";
import { deriveEarlySecret, resumptionBinder, resumptionMasterSecret, ticketPsk } from "./key-schedule";
import type { TicketEntry, TicketStore } from "./ticket-store";

/** The ticket identity: 32 random bytes, a key into the server's store (never the state itself). */
const TICKET_IDENTITY_LENGTH = 32;

export interface Resumption {
  entry: TicketEntry;
  /** The index of the accepted identity, echoed in the ServerHello's pre_shared_key. */
  selectedIdentity: number;
  /** psk_dhe_ke: a fresh (EC)DHE with the client's share; psk_ke: the PSK alone, no key_share sent. */
  mode: PskMode;
}

export interface ResumptionRules {
  /**
   * Whether psk_ke (no (EC)DHE, so no forward secrecy) is accepted: only where nobody but this
   * process can record the link (docs/decisions/0024-psk-ke-on-the-guest-link.md).
   */
  withoutKeyExchange: boolean;
  /** The groups this engine can compute; a psk_dhe_ke share must be for one of them. */
  groups?: readonly KeyExchangeGroup[];
}

/**
 * The mode a PSK offer resumes with, or null for a full handshake. psk_dhe_ke whenever the
 * client offers it and already sent a share for a group the server takes (forward secrecy at
 * no cost to a client that paid for its share); else psk_ke if the client offers it and the
 * rules allow it. Never through a HelloRetryRequest.
 */
export function resumptionMode(hello: ClientHello, rules: ResumptionRules): PskMode | null {
  const modes = hello.pskModes ?? [];
  const shareGroups = hello.keyShares?.map((share) => share.group) ?? [];
  if (modes.includes(PskKeyExchangeMode.psk_dhe_ke) && preferredGroup(shareGroups, rules.groups ?? SERVER_GROUPS) !== null)
    return "psk_dhe_ke";
  if (rules.withoutKeyExchange && modes.includes(PskKeyExchangeMode.psk_ke)) return "psk_ke";
  return null;
}

/**
 * Decides whether this ClientHello resumes, after checkClientHello (and its SNI rule) passed.
 * Resumes only in a mode resumptionMode allows, with no early_data offered (0-RTT is never
 * accepted), and the first offered ticket this store holds, unexpired, issued under this
 * CONNECT host; otherwise null: a full handshake, and no ticket is spent. A known ticket whose
 * binder does not verify aborts with decrypt_error (§4.2.11 says the server MUST).
 */
export async function selectResumption(
  hello: ClientHello,
  helloMessage: Uint8Array,
  tickets: TicketStore,
  connectHost: string,
  rules: ResumptionRules = { withoutKeyExchange: false },
): Promise<Resumption | null> {
  const offered = hello.preSharedKey;
  if (offered === null) return null;
  const mode = resumptionMode(hello, rules);
  if (mode === null) return null;
  if (hello.extensionTypes.includes(ExtensionType.earlyData)) return null;
  for (let index = 0; index < offered.identities.length; index++) {
    // Taken out of the store at once: single use, even when the binder then fails.
    const entry = tickets.take(offered.identities[index]!.identity, connectHost);
    if (entry === null) continue;
    const truncated = helloMessage.subarray(0, helloMessage.length - offered.bindersLength);
    const expected = await resumptionBinder(await deriveEarlySecret(entry.psk), await sha256(truncated));
    if (!constantTimeEqual(offered.binders[index]!, expected))
      throw protocolError("decrypt_error", "the PSK binder of a known session ticket does not verify");
    return { entry, selectedIdentity: index, mode };
  }
  return null;
}

/** Everything a ticket is issued from, once the client Finished verified. */
export interface TicketSource {
  tickets: TicketStore;
  masterSecret: Uint8Array;
  /** Transcript-Hash(ClientHello..client Finished). */
  clientFinishedHash: Uint8Array;
  host: string;
  alpn: string | null;
  certFingerprint: string;
}

/** Stores a fresh ticket and returns the NewSessionTicket message that hands its identity to the client (§4.6.1). */
export async function issueTicket(source: TicketSource): Promise<Uint8Array> {
  const { tickets } = source;
  const nonce = new ByteWriter(4).u32(tickets.nextNonce()).finish();
  const psk = await ticketPsk(await resumptionMasterSecret(source.masterSecret, source.clientFinishedHash), nonce);
  const identity = crypto.getRandomValues(new Uint8Array(TICKET_IDENTITY_LENGTH));
  const ageAdd = crypto.getRandomValues(new Uint32Array(1))[0]!;
  const entry = tickets.add(identity, { psk, host: source.host, alpn: source.alpn, certFingerprint: source.certFingerprint, ageAdd });
  return serializeNewSessionTicket({ lifetimeSeconds: entry.lifetimeSeconds, ageAdd, nonce, identity });
}

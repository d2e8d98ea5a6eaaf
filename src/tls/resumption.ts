import { ByteWriter, constantTimeEqual } from "../bytes";
import type { ClientHello } from "./client-hello";
import { ExtensionType } from "./constants";
import { protocolError } from "./failure";
import { serializeNewSessionTicket } from "./handshake-messages";
import { sha256 } from "./hkdf";
import { preferredGroup } from "./key-exchange";
import { deriveEarlySecret, resumptionBinder, resumptionMasterSecret, ticketPsk } from "./key-schedule";
import type { TicketEntry, TicketStore } from "./ticket-store";

/** psk_dhe_ke (RFC 8446 §4.2.9): the PSK is mixed with a fresh (EC)DHE, so the session keeps forward secrecy. */
const PSK_DHE_KE = 1;
/** The ticket identity: 32 random bytes, a key into the server's store (never the state itself). */
const TICKET_IDENTITY_LENGTH = 32;

export interface Resumption {
  entry: TicketEntry;
  /** The index of the accepted identity, echoed in the ServerHello's pre_shared_key. */
  selectedIdentity: number;
}

/**
 * Decides whether this ClientHello resumes, after checkClientHello (and its SNI rule) passed.
 * Resumes only with psk_dhe_ke, a key share already sent for a group the server takes (x25519
 * or secp256r1: never through a HelloRetryRequest),
 * no early_data offered (0-RTT is never accepted), and the first offered ticket this store
 * holds, unexpired, issued under this CONNECT host; otherwise null: a full handshake. A known
 * ticket whose binder does not verify aborts with decrypt_error (§4.2.11 says the server MUST).
 */
export async function selectResumption(
  hello: ClientHello,
  helloMessage: Uint8Array,
  tickets: TicketStore,
  connectHost: string,
): Promise<Resumption | null> {
  const offered = hello.preSharedKey;
  if (offered === null || !hello.pskModes?.includes(PSK_DHE_KE)) return null;
  if (preferredGroup(hello.keyShares?.map((share) => share.group) ?? []) === null) return null;
  if (hello.extensionTypes.includes(ExtensionType.earlyData)) return null;
  for (let index = 0; index < offered.identities.length; index++) {
    // Taken out of the store at once: single use, even when the binder then fails.
    const entry = tickets.take(offered.identities[index]!.identity, connectHost);
    if (entry === null) continue;
    const truncated = helloMessage.subarray(0, helloMessage.length - offered.bindersLength);
    const expected = await resumptionBinder(await deriveEarlySecret(entry.psk), await sha256(truncated));
    if (!constantTimeEqual(offered.binders[index]!, expected))
      throw protocolError("decrypt_error", "the PSK binder of a known session ticket does not verify");
    return { entry, selectedIdentity: index };
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

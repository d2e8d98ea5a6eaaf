import { concatBytes, constantTimeEqual } from "../bytes";
import { messageOf } from "../platform";
import type { LeafCertificate } from "./ca";
import { type ClientHello, parseClientHello } from "./client-hello";
import { alertLabel, ContentType, HandshakeType, PskKeyExchangeMode, type PskMode, TLS_AES_128_GCM_SHA256, TLS13 } from "./constants";
import { protocolError, TlsFailure } from "./failure";
import {
  certificateVerifyContent,
  HandshakeAssembler,
  type HandshakeMessage,
  messageHash,
  serializeCertificate,
  serializeCertificateVerify,
  serializeEncryptedExtensions,
  serializeFinished,
  serializeHelloRetryRequest,
  serializeServerHello,
} from "./handshake-messages";
import { sha256 } from "./hkdf";
import { normalizeHost } from "./host";
import {
  type GroupName,
  groupList,
  type KeyExchangeGroup,
  type KeyExchangeResult,
  preferredGroup,
  SERVER_GROUPS,
  usableServerGroups,
} from "./key-exchange";
import { deriveApplicationSecrets, deriveHandshakeSecrets, deriveTrafficKeys, finishedVerifyData } from "./key-schedule";
import { RecordCipher } from "./record";
import type { RecordLayer } from "./record-layer";
import { issueTicket, type Resumption, selectResumption } from "./resumption";
import type { TicketStore } from "./ticket-store";

export const CIPHER_NAME = "TLS_AES_128_GCM_SHA256";
const ALPN_HTTP1 = "http/1.1";
/** Finished.verify_data is Hash.length bytes: 32 for SHA-256 (RFC 8446 §4.4.4). */
const FINISHED_LENGTH = 32;

/** What the handshake has learnt so far; read by the terminator to log a failure in context. */
export interface HandshakeProgress {
  sni: string | null;
  alpn: string | null;
  certFingerprint: string | null;
  helloRetry: boolean;
  /** The key exchange group chosen (from a share sent, or asked for by a HelloRetryRequest); null in a psk_ke resumption. */
  group: GroupName | null;
  /** True once a session ticket's PSK was accepted (no certificate sent). */
  resumed: boolean;
  /** How the accepted PSK was used: with a fresh (EC)DHE (psk_dhe_ke) or alone (psk_ke). */
  pskMode: PskMode | null;
}

export interface Established {
  sni: string;
  alpn: string | null;
  /** The leaf sent, or on resumption the one the client verified when its ticket was issued. */
  certFingerprint: string;
  resumed: boolean;
  clientApplicationTrafficSecret: Uint8Array;
  serverApplicationTrafficSecret: Uint8Array;
}

export interface HandshakeParams {
  layer: RecordLayer;
  /** The host the proxy allowed in CONNECT: the only name the ClientHello may carry. */
  connectHost: string;
  leafFor(host: string): Promise<LeafCertificate>;
  /** The SignatureScheme the leaves sign CertificateVerify with (SessionCa.leafScheme). */
  leafScheme: number;
  /** Where tickets are issued to and resumed from; without it no ticket is sent and none accepted. */
  tickets?: TicketStore;
  /** Accept psk_ke resumption (no (EC)DHE): docs/decisions/0024-psk-ke-on-the-guest-link.md. Default false. */
  resumeWithoutKeyExchange?: boolean;
  progress: HandshakeProgress;
}

const SCHEME_NAMES: Record<number, string> = { 1027: "ecdsa_secp256r1_sha256", 2052: "rsa_pss_rsae_sha256", 2055: "ed25519" };

/** Turns a received alert record into the failure it means; we never answer an alert with one. */
export function peerAlertFailure(content: Uint8Array, when: string): TlsFailure {
  if (content.length !== 2) return protocolError("decode_error", `an alert record of ${content.length} bytes`);
  const description = content[1]!;
  if (description === 0) return new TlsFailure(null, "tls-error", `the client closed (close_notify) ${when}`);
  return new TlsFailure(null, "tls-error", `the client sent alert ${alertLabel(description)} ${when}`);
}

/**
 * The checks on a ClientHello, in the order a verdict should name them: first the SNI rule
 * (verdict table, row 5: inside CONNECT A, a ClientHello for B is impossible by design), whatever
 * TLS version the client speaks, then what this server can negotiate.
 */
export function checkClientHello(
  hello: ClientHello,
  connectHost: string,
  leafScheme: number,
  serverGroups: readonly KeyExchangeGroup[] = SERVER_GROUPS,
): string {
  if (hello.serverName === null)
    throw new TlsFailure(
      "missing_extension",
      "sni-missing",
      `the ClientHello inside CONNECT ${connectHost} names no server (no SNI)`,
      "design",
    );
  if (normalizeHost(hello.serverName) !== normalizeHost(connectHost))
    throw new TlsFailure(
      "unrecognized_name",
      "sni-mismatch",
      `inside CONNECT ${connectHost} the ClientHello named ${hello.serverName}; the tunnel carries only the host it was opened for`,
      "design",
    );
  if (!hello.supportedVersions?.includes(TLS13)) throw protocolError("protocol_version", "the client does not offer TLS 1.3");
  if (!hello.cipherSuites.includes(TLS_AES_128_GCM_SHA256))
    throw protocolError("handshake_failure", "the client does not offer TLS_AES_128_GCM_SHA256");
  if (hello.compressionMethods.length !== 1 || hello.compressionMethods[0] !== 0)
    throw protocolError("illegal_parameter", "legacy_compression_methods is not exactly [null]");
  if (hello.signatureAlgorithms === null) throw protocolError("missing_extension", "the ClientHello has no signature_algorithms");
  if (!hello.signatureAlgorithms.includes(leafScheme))
    throw protocolError("handshake_failure", `the client does not accept ${SCHEME_NAMES[leafScheme] ?? `signature scheme ${leafScheme}`}`);
  // A client offering a PSK for psk_ke may leave key_share out: it needs none to resume. If it
  // is not resumed, a HelloRetryRequest asks it for a share, as for an empty client_shares (§4.2.8).
  const mayOmitKeyShare = hello.preSharedKey !== null && hello.pskModes?.includes(PskKeyExchangeMode.psk_ke) === true;
  if (hello.supportedGroups === null || (hello.keyShares === null && !mayOmitKeyShare))
    throw protocolError("missing_extension", "the ClientHello lacks supported_groups or key_share");
  if (preferredGroup(hello.supportedGroups, serverGroups) === null) throw noGroupInCommon(hello.supportedGroups, serverGroups);
  const groups = new Set(hello.supportedGroups); // a Set: shares × groups could be 10^8 comparisons
  if ((hello.keyShares ?? []).some((share) => !groups.has(share.group)))
    throw protocolError("illegal_parameter", "a key share for a group not in supported_groups");
  // A client offering a PSK must say how it may be used (§4.2.9).
  if (hello.preSharedKey !== null && hello.pskModes === null)
    throw protocolError("missing_extension", "pre_shared_key without psk_key_exchange_modes");
  return hello.serverName;
}

/** The refusal of a client whose supported_groups holds none the server takes: what it offered, what would do. */
function noGroupInCommon(offered: readonly number[], groups: readonly KeyExchangeGroup[]): TlsFailure {
  const what = offered.length === 0 ? "no key exchange group" : `only ${groupList(offered)}`;
  return protocolError("handshake_failure", `the client offers ${what}; this server takes ${groups.map((g) => g.name).join(" or ")}`);
}

/** The group to use: with the client's share of it, or with null when a HelloRetryRequest must ask for one. */
export interface GroupSelection {
  group: KeyExchangeGroup;
  share: Uint8Array | null;
}

/**
 * Picks the key exchange group for a ClientHello that passed checkClientHello (RFC 8446
 * §4.1.1, §4.2.8): the server's most preferred group the client sent a share for; else the
 * server's most preferred group in supported_groups, to be asked for with a HelloRetryRequest.
 */
export function selectGroup(hello: ClientHello, groups: readonly KeyExchangeGroup[] = SERVER_GROUPS): GroupSelection {
  // A share already sent is used even when it is not the server's first choice (a P-256 share
  // from a client that also lists x25519): both give ~128-bit security, and asking for x25519
  // instead would cost the client a round trip and a second key for nothing.
  for (const group of groups) {
    const share = hello.keyShares?.find((s) => s.group === group.code);
    if (share) return { group, share: share.keyExchange };
  }
  const group = preferredGroup(hello.supportedGroups ?? [], groups);
  if (group === null) throw noGroupInCommon(hello.supportedGroups ?? [], groups);
  return { group, share: null };
}

/**
 * The one share a ClientHello sent after a HelloRetryRequest for `group` may carry (§4.1.2: the
 * client replaces its key shares with a single one for the group the server named).
 */
function retriedShare(hello: ClientHello, group: KeyExchangeGroup): Uint8Array {
  const shares = hello.keyShares ?? [];
  const share = shares.find((s) => s.group === group.code);
  if (!share)
    throw protocolError(
      "illegal_parameter",
      `the second ClientHello still has no ${group.name} key share (the group the HelloRetryRequest named)`,
    );
  if (shares.length !== 1)
    throw protocolError(
      "illegal_parameter",
      `the second ClientHello has ${shares.length} key shares; after the HelloRetryRequest it may carry only the ${group.name} one`,
    );
  return share.keyExchange;
}

/**
 * The server side of a TLS 1.3 handshake (RFC 8446 §2, Figure 1, with the HRR of Figure 2):
 * ClientHello → [HelloRetryRequest → ClientHello] → ServerHello, [CCS], {EncryptedExtensions,
 * Certificate, CertificateVerify, Finished} → client {Finished} → {NewSessionTicket}. A
 * resumption (§2.2) sends no Certificate or CertificateVerify; a psk_ke one (§4.2.9, where
 * allowed) also no key share, and makes no (EC)DHE exchange at all.
 */
export async function serverHandshake(params: HandshakeParams): Promise<Established> {
  const { layer, connectHost, leafFor, leafScheme, tickets, progress } = params;
  // Each message is judged by its header as soon as that is in: the client sends exactly
  // ClientHello (twice after an HRR), then Finished, so anything else is refused before its
  // body is collected.
  let want: { type: number; name: string } = { type: HandshakeType.clientHello, name: "the first ClientHello" };
  const assembler = new HandshakeAssembler((type, length) => {
    if (type !== want.type) throw protocolError("unexpected_message", `expected ${want.name}, got handshake type ${type}`);
    if (type === HandshakeType.finished && length !== FINISHED_LENGTH)
      throw protocolError("decode_error", `a Finished of ${length} bytes (SHA-256 verify_data is ${FINISHED_LENGTH})`);
  });
  let helloSeen = false;
  let ccsSent = false;

  async function nextMessage(): Promise<HandshakeMessage> {
    for (;;) {
      const message = assembler.next();
      if (message) return message;
      const record = await layer.read();
      if (record === null) throw new TlsFailure(null, "tls-error", "the client closed the connection during the handshake");
      if (record.type === ContentType.handshake) {
        if (record.content.length === 0) throw protocolError("unexpected_message", "an empty handshake record");
        assembler.push(record.content);
      } else if (record.type === ContentType.changeCipherSpec) {
        // Middlebox compatibility (Appendix D.4): one unprotected 0x01 after the first ClientHello is ignored.
        if (!helloSeen || record.protected || record.content.length !== 1 || record.content[0] !== 1)
          throw protocolError("unexpected_message", "a change_cipher_spec record out of place");
      } else if (record.type === ContentType.alert) {
        throw peerAlertFailure(record.content, "during the handshake");
      } else {
        throw protocolError("unexpected_message", "application data before the handshake completed");
      }
    }
  }

  async function readClientHello(which: string): Promise<{ message: HandshakeMessage; hello: ClientHello }> {
    want = { type: HandshakeType.clientHello, name: `the ${which} ClientHello` };
    const message = await nextMessage();
    if (message.type !== HandshakeType.clientHello)
      throw protocolError("unexpected_message", `expected the ${which} ClientHello, got handshake type ${message.type}`);
    if (assembler.pending > 0) throw protocolError("unexpected_message", `handshake data after the ${which} ClientHello`);
    helloSeen = true;
    const hello = parseClientHello(message.body);
    progress.sni = hello.serverName;
    return { message, hello };
  }

  async function sendChangeCipherSpecOnce(sessionId: Uint8Array): Promise<void> {
    if (sessionId.length === 0 || ccsSent) return;
    ccsSent = true;
    await layer.send(ContentType.changeCipherSpec, Uint8Array.of(1));
  }

  const first = await readClientHello("first");
  let hello = first.hello;
  // The groups this engine can compute (X25519 is missing from some): asked once per page.
  const groups = await usableServerGroups();
  let sni = checkClientHello(hello, connectHost, leafScheme, groups);
  // Looked at only once the SNI rule passed; no resumption needs a HelloRetryRequest.
  const resumption: Resumption | null = tickets
    ? await selectResumption(hello, first.message.raw, tickets, connectHost, {
        withoutKeyExchange: params.resumeWithoutKeyExchange ?? false,
        groups,
      })
    : null;
  const leafPromise = resumption ? null : leafFor(connectHost);
  leafPromise?.catch(() => undefined); // awaited below; a failure must not surface as unhandled first
  let transcript: Uint8Array[] = [first.message.raw];

  /** The (EC)DHE: with a share the client sent, or with the one a HelloRetryRequest asks for (§4.1.4). */
  async function exchangeKeys(): Promise<{ group: KeyExchangeGroup; exchange: KeyExchangeResult }> {
    const { group, share: firstShare } = selectGroup(hello, groups);
    progress.group = group.name;
    let share = firstShare;
    if (share === null) {
      progress.helloRetry = true;
      const retry = serializeHelloRetryRequest({ legacySessionId: hello.legacySessionId, group: group.code });
      transcript = [messageHash(await sha256(first.message.raw)), retry];
      await layer.send(ContentType.handshake, retry);
      await sendChangeCipherSpecOnce(hello.legacySessionId);
      const second = await readClientHello("second");
      if (!constantTimeEqual(second.hello.legacySessionId, hello.legacySessionId))
        throw protocolError("illegal_parameter", "the second ClientHello changed legacy_session_id");
      sni = checkClientHello(second.hello, connectHost, leafScheme, groups);
      hello = second.hello;
      transcript.push(second.message.raw);
      share = retriedShare(hello, group);
    }
    return { group, exchange: await group.exchange(share) };
  }
  // psk_ke: the PSK alone keys the session; there is no group, no share and no HelloRetryRequest.
  const keys = resumption?.mode === "psk_ke" ? null : await exchangeKeys();
  progress.pskMode = resumption?.mode ?? null;

  const leaf = await leafPromise?.catch((error: unknown) => {
    throw new TlsFailure("internal_error", "tls-error", `no certificate for ${connectHost}: ${messageOf(error)}`);
  });
  const certFingerprint = resumption ? resumption.entry.certFingerprint : leaf!.fingerprint;
  progress.certFingerprint = certFingerprint;
  progress.resumed = resumption !== null;
  const alpn = hello.alpn?.includes(ALPN_HTTP1) ? ALPN_HTTP1 : null;
  progress.alpn = alpn;

  const serverHello = serializeServerHello({
    random: crypto.getRandomValues(new Uint8Array(32)),
    legacySessionId: hello.legacySessionId,
    ...(keys ? { group: keys.group.code, keyExchange: keys.exchange.publicKey } : {}),
    ...(resumption ? { selectedIdentity: resumption.selectedIdentity } : {}),
  });
  transcript.push(serverHello);
  await layer.send(ContentType.handshake, serverHello);
  await sendChangeCipherSpecOnce(hello.legacySessionId);

  const secrets = await deriveHandshakeSecrets(
    keys?.exchange.sharedSecret ?? null,
    await sha256(concatBytes(...transcript)),
    resumption?.entry.psk,
  );
  await layer.setWriteCipher(await RecordCipher.create(await deriveTrafficKeys(secrets.serverHandshakeTrafficSecret)));
  layer.readCipher = await RecordCipher.create(await deriveTrafficKeys(secrets.clientHandshakeTrafficSecret));

  const flight = [serializeEncryptedExtensions(alpn)];
  transcript.push(flight[0]!);
  if (leaf) {
    const certificate = serializeCertificate(leaf.chain);
    transcript.push(certificate);
    const signature = await leaf.signHandshake(certificateVerifyContent(await sha256(concatBytes(...transcript))));
    const certificateVerify = serializeCertificateVerify(leaf.scheme, signature);
    transcript.push(certificateVerify);
    flight.push(certificate, certificateVerify);
  }
  const serverFinished = serializeFinished(
    await finishedVerifyData(secrets.serverHandshakeTrafficSecret, await sha256(concatBytes(...transcript))),
  );
  transcript.push(serverFinished);
  flight.push(serverFinished);
  await layer.send(ContentType.handshake, concatBytes(...flight));

  const serverFinishedHash = await sha256(concatBytes(...transcript));
  const application = await deriveApplicationSecrets(secrets.handshakeSecret, serverFinishedHash);
  await layer.setWriteCipher(await RecordCipher.create(await deriveTrafficKeys(application.serverApplicationTrafficSecret)));

  want = { type: HandshakeType.finished, name: "the client Finished" };
  const finished = await nextMessage();
  if (finished.type !== HandshakeType.finished)
    throw protocolError("unexpected_message", `expected the client Finished, got handshake type ${finished.type}`);
  const expected = await finishedVerifyData(secrets.clientHandshakeTrafficSecret, serverFinishedHash);
  if (!constantTimeEqual(finished.body, expected)) throw protocolError("decrypt_error", "the client Finished does not verify");
  if (assembler.pending > 0) throw protocolError("unexpected_message", "handshake data after the client Finished");
  layer.readCipher = await RecordCipher.create(await deriveTrafficKeys(application.clientApplicationTrafficSecret));

  if (tickets) {
    // One ticket per session, full or resumed, sent under the application keys (§4.6.1).
    transcript.push(finished.raw);
    const ticket = await issueTicket({
      tickets,
      masterSecret: application.masterSecret,
      clientFinishedHash: await sha256(concatBytes(...transcript)),
      host: connectHost,
      alpn,
      certFingerprint,
    });
    // A ticket is optional to the client; if it cannot be sent, the tunnel's next write reports the broken stream.
    await layer.send(ContentType.handshake, ticket).catch(() => undefined);
  }

  return {
    sni,
    alpn,
    certFingerprint,
    resumed: resumption !== null,
    clientApplicationTrafficSecret: application.clientApplicationTrafficSecret,
    serverApplicationTrafficSecret: application.serverApplicationTrafficSecret,
  };
}

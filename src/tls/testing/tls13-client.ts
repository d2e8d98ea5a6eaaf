import { ByteReader, type ByteStream, concatBytes, decodeUtf8, equalBytes, utf8 } from "../../bytes";
import { ContentType, ExtensionType, HandshakeType, PskKeyExchangeMode, type PskMode } from "../constants";
import { HandshakeAssembler, type HandshakeMessage, messageHash, serializeFinished } from "../handshake-messages";
import { sha256 } from "../hkdf";
import {
  deriveApplicationSecrets,
  deriveEarlySecret,
  deriveHandshakeSecrets,
  deriveTrafficKeys,
  finishedVerifyData,
  resumptionBinder,
  resumptionMasterSecret,
  ticketPsk,
} from "../key-schedule";
import { parseRecord, RecordCipher, serializeRecord, type WireRecord } from "../record";
import { buildClientHello, preSharedKeyData, pskModesData } from "./client-hello-builder";
import { type ClientKey, p256ClientKey, x25519ClientKey } from "./client-keys";
import { readServerHello, type ServerHelloSeen } from "./server-hello-reader";

/**
 * A small TLS 1.3 client for tests of the server's key schedule: it derives every secret
 * itself (RFC 8446 §7.1), so a session it completes proves both sides derived the same keys.
 * It offers a ticket with the modes a test names, with a real key share, an empty one or no
 * key_share at all, follows a HelloRetryRequest, verifies the server Finished, sends data,
 * reads the reply and keeps the ticket it is given. It checks no certificate (the server's
 * chain is tested with real clients in interop.test.ts).
 */

/** A ticket as the client keeps it: the identity to offer and the PSK it derived (§4.6.1). */
export interface ClientTicket {
  identity: Uint8Array;
  psk: Uint8Array;
}

export interface Tls13ClientOptions {
  serverName: string;
  /** What the first ClientHello's key_share holds: a real X25519 share, an empty list, or no extension. */
  firstKeyShare: "x25519" | "empty" | "absent";
  /** A ticket to offer, and the psk_key_exchange_modes to offer it with. */
  resume?: { ticket: ClientTicket; modes: PskMode[]; tamperBinder?: boolean };
  /** Sent as application data once the handshake completed; the server is expected to echo it. */
  send: string;
}

export interface Tls13ClientRun {
  /** The server's first answer was a HelloRetryRequest. */
  helloRetry: boolean;
  /** The ServerHello the session was keyed with. */
  serverHello: ServerHelloSeen | null;
  /** A Certificate came: a full handshake. */
  certificate: boolean;
  /** The application data read back, decrypted with this client's own keys. */
  reply: string;
  /** The ticket the server handed out, with the PSK this client derived for it. */
  ticket: ClientTicket | null;
  /** The description of an alert the server sent instead of a handshake, if any. */
  alert: number | null;
}

/** pre_shared_key with one identity and one 32-byte binder: the binders list is the message's last 35 bytes. */
const BINDERS_TAIL = 2 + 1 + 32;

/** Reads whole records from the client's end of the stream. */
function recordReader(readable: ReadableStream<Uint8Array>) {
  const reader = readable.getReader();
  let buffer: Uint8Array = new Uint8Array(0);
  return async (): Promise<WireRecord | null> => {
    for (;;) {
      const parsed = parseRecord(buffer);
      if (parsed) {
        buffer = buffer.subarray(parsed.size);
        return parsed.record;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer = concatBytes(buffer, value);
    }
  };
}

async function clientHello(
  options: Tls13ClientOptions,
  keyShare: { group: number; key: ClientKey } | "empty" | "absent",
  transcriptBefore: Uint8Array[],
): Promise<Uint8Array> {
  const { resume } = options;
  const message = buildClientHello({
    serverName: options.serverName,
    alpn: ["http/1.1"],
    keyShares: keyShare === "absent" ? null : keyShare === "empty" ? [] : [{ group: keyShare.group, key: keyShare.key.share }],
    extra: resume
      ? [
          { type: ExtensionType.pskKeyExchangeModes, data: pskModesData(resume.modes.map((mode) => PskKeyExchangeMode[mode])) },
          { type: ExtensionType.preSharedKey, data: preSharedKeyData([{ identity: resume.ticket.identity }], [new Uint8Array(32)]) },
        ]
      : [],
  });
  if (!resume) return message;
  // The binder covers the transcript so far and this ClientHello up to its binders (§4.2.11.2).
  const truncated = message.subarray(0, message.length - BINDERS_TAIL);
  const binder = await resumptionBinder(
    await deriveEarlySecret(resume.ticket.psk),
    await sha256(concatBytes(...transcriptBefore, truncated)),
  );
  if (resume.tamperBinder) binder[0]! ^= 1;
  message.set(binder, message.length - 32);
  return message;
}

const handshakeRecord = (message: Uint8Array): Uint8Array =>
  serializeRecord({ type: ContentType.handshake, version: 0x0303, fragment: message });

/** Runs one session over `stream` (the client's end of a pipe to the server); never rejects for a server's refusal. */
export async function runTls13Client(stream: ByteStream, options: Tls13ClientOptions): Promise<Tls13ClientRun> {
  const run: Tls13ClientRun = { helloRetry: false, serverHello: null, certificate: false, reply: "", ticket: null, alert: null };
  const writer = stream.writable.getWriter();
  // Queued, not awaited: a pipe with no buffer would otherwise deadlock a write against the
  // server's own write of its ticket. The writer keeps the order.
  const send = (bytes: Uint8Array): void => void writer.write(bytes).catch(() => undefined);
  const nextAnyRecord = recordReader(stream.readable);
  /** The next record that is not a CCS (skipped); a plaintext alert ends the run (null). */
  const nextRecord = async () => {
    for (;;) {
      const record = await nextAnyRecord();
      if (record === null) return null;
      if (record.type === ContentType.changeCipherSpec) continue;
      if (record.type !== ContentType.alert) return record;
      run.alert = record.fragment[1] ?? null;
      return null;
    }
  };
  /** The next plaintext handshake record. */
  const nextPlainHandshake = async (): Promise<Uint8Array | null> => (await nextRecord())?.fragment ?? null;

  let key = await x25519ClientKey();
  const first = await clientHello(options, options.firstKeyShare === "x25519" ? { group: 0x1d, key } : options.firstKeyShare, []);
  send(handshakeRecord(first));
  let transcript: Uint8Array[] = [first];
  let answer = await nextPlainHandshake();
  if (answer === null) return run;
  let hello = readServerHello(answer.subarray(4));
  if (hello.helloRetry) {
    run.helloRetry = true;
    // The second ClientHello carries one share, for the group asked for (§4.1.2); the first is replaced by its hash (§4.4.1).
    key = hello.group === 0x17 ? await p256ClientKey() : await x25519ClientKey();
    transcript = [messageHash(await sha256(first)), answer];
    const second = await clientHello(options, { group: hello.group!, key }, transcript);
    send(handshakeRecord(second));
    transcript.push(second);
    answer = await nextPlainHandshake();
    if (answer === null) return run;
    hello = readServerHello(answer.subarray(4));
  }
  run.serverHello = hello;
  transcript.push(answer);

  const sharedSecret = hello.keyExchange ? await key.secretWith(hello.keyExchange) : null;
  const psk = hello.selectedIdentity !== null ? options.resume?.ticket.psk : undefined;
  const secrets = await deriveHandshakeSecrets(sharedSecret, await sha256(concatBytes(...transcript)), psk);
  let serverCipher = await RecordCipher.create(await deriveTrafficKeys(secrets.serverHandshakeTrafficSecret));
  const assembler = new HandshakeAssembler();
  /**
   * The next handshake message under the server's current keys, or "data" once application
   * data was added to the reply; null at an alert or the end of the stream.
   */
  const nextMessage = async (): Promise<HandshakeMessage | "data" | null> => {
    for (;;) {
      const message = assembler.next();
      if (message) return message;
      const record = await nextRecord();
      if (record === null) return null;
      const inner = await serverCipher.open(record);
      if (inner.type === ContentType.handshake) assembler.push(inner.content);
      else if (inner.type === ContentType.alert)
        return null; // close_notify after the echo
      else {
        run.reply += decodeUtf8(inner.content);
        return "data";
      }
    }
  };

  for (;;) {
    const message = await nextMessage();
    if (message === null || message === "data") throw new Error("the server's handshake flight ended early");
    if (message.type === HandshakeType.certificate) run.certificate = true;
    if (message.type === HandshakeType.finished) {
      const expected = await finishedVerifyData(secrets.serverHandshakeTrafficSecret, await sha256(concatBytes(...transcript)));
      if (!equalBytes(expected, message.body)) throw new Error("the server Finished does not verify");
      transcript.push(message.raw);
      break;
    }
    transcript.push(message.raw);
  }
  const serverFinishedHash = await sha256(concatBytes(...transcript));
  const application = await deriveApplicationSecrets(secrets.handshakeSecret, serverFinishedHash);
  const clientHandshake = await RecordCipher.create(await deriveTrafficKeys(secrets.clientHandshakeTrafficSecret));
  const finished = serializeFinished(await finishedVerifyData(secrets.clientHandshakeTrafficSecret, serverFinishedHash));
  transcript.push(finished);
  const clientApplication = await RecordCipher.create(await deriveTrafficKeys(application.clientApplicationTrafficSecret));
  serverCipher = await RecordCipher.create(await deriveTrafficKeys(application.serverApplicationTrafficSecret));
  send(serializeRecord(await clientHandshake.seal(ContentType.handshake, finished)));
  send(serializeRecord(await clientApplication.seal(ContentType.applicationData, utf8(options.send))));
  const resumptionMaster = await resumptionMasterSecret(application.masterSecret, await sha256(concatBytes(...transcript)));

  while (run.reply.length < options.send.length || run.ticket === null) {
    const message = await nextMessage();
    if (message === null) break;
    if (message === "data" || message.type !== HandshakeType.newSessionTicket) continue;
    const r = new ByteReader(message.body);
    r.u32(); // ticket_lifetime
    r.u32(); // ticket_age_add
    const nonce = r.prefixed(1);
    const identity = r.prefixed(2);
    run.ticket = { identity: identity.take(identity.remaining), psk: await ticketPsk(resumptionMaster, nonce.take(nonce.remaining)) };
  }
  send(serializeRecord(await clientApplication.seal(ContentType.alert, Uint8Array.of(1, 0))));
  writer.close().catch(() => undefined);
  return run;
}

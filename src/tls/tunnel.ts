import type { ByteStream } from "../bytes";
import { ContentType, HandshakeType } from "./constants";
import { asFailure, protocolError, type TlsFailure } from "./failure";
import { type Established, peerAlertFailure } from "./handshake";
import { HandshakeAssembler, type HandshakeMessage, serializeKeyUpdate } from "./handshake-messages";
import { deriveTrafficKeys, nextTrafficSecret } from "./key-schedule";
import { RecordCipher } from "./record";
import type { RecordLayer } from "./record-layer";

export interface TunnelHooks {
  /** The client rotated its keys (and ours, if it asked). */
  keyUpdated(): void;
  /** The session ended on an error: the alert has been sent and the raw stream torn down. */
  failed(failure: TlsFailure): void;
  /** Both directions ended cleanly (close_notify or end of stream in, close_notify out). */
  closed(): void;
}

const ALERT_USER_CANCELED = 90;

/**
 * How often a client may rotate its keys: at most `updates` KeyUpdates within any `records`
 * consecutive records it sent. Each KeyUpdate costs a key derivation and a key import (and,
 * when it asks for ours, a rekey and a record back), so an unbounded stream of them would
 * make a few bytes cost far more than the same bytes of data (RFC 8446 §4.6.3 sets no limit;
 * this one is far above what a client rotating by data volume needs).
 */
export interface KeyUpdateLimit {
  updates: number;
  records: number;
}

export const DEFAULT_KEY_UPDATE_LIMIT: Readonly<KeyUpdateLimit> = { updates: 8, records: 1024 };

/** Counts a client's records and KeyUpdates; refuses the KeyUpdate that would exceed the limit. */
export class KeyUpdateBudget {
  private received = 0;
  /** The record numbers of the latest KeyUpdates, oldest first, at most `updates` of them. */
  private readonly recent: number[] = [];

  constructor(private readonly limit: KeyUpdateLimit) {}

  /** One more record received from the client. */
  countRecord(): void {
    this.received++;
  }

  /** The client's record just counted was a KeyUpdate: throws unexpected_message past the limit. */
  spend(): void {
    const { updates, records } = this.limit;
    if (this.recent.length >= updates && this.received - this.recent[0]! < records)
      throw protocolError("unexpected_message", `more than ${updates} KeyUpdates within ${records} records`);
    this.recent.push(this.received);
    if (this.recent.length > updates) this.recent.shift();
  }
}

export interface TunnelOptions {
  keyUpdates?: KeyUpdateLimit;
}

/**
 * The plaintext side of an established session. Reads are served from a bounded read-ahead
 * of records (backpressure still reaches the guest's TCP window); writes are coalesced and
 * sealed into records of at most 2^14 bytes and resolve once the record layer holds less
 * than one record of them (see RecordWriter), so sealing overlaps the writer's next chunk.
 */
export function openTunnel(layer: RecordLayer, established: Established, hooks: TunnelHooks, options: TunnelOptions = {}): ByteStream {
  let clientSecret = established.clientApplicationTrafficSecret;
  let serverSecret = established.serverApplicationTrafficSecret;
  // After the handshake a client may send only KeyUpdate (tickets go only to the client, and no
  // post-handshake auth was offered): anything else is refused by its header, before its body is collected.
  const assembler = new HandshakeAssembler((type, length) => {
    if (type !== HandshakeType.keyUpdate) throw protocolError("unexpected_message", `handshake type ${type} after the handshake`);
    if (length !== 1) throw protocolError("decode_error", "a KeyUpdate body is one byte");
  });
  const keyUpdates = new KeyUpdateBudget(options.keyUpdates ?? DEFAULT_KEY_UPDATE_LIMIT);
  let readDone = false;
  let writeDone = false;
  let ended = false;
  let readController: ReadableStreamDefaultController<Uint8Array> | null = null;

  function maybeClosed(): void {
    if (ended || !readDone || !writeDone) return;
    ended = true;
    hooks.closed();
  }

  async function fail(error: unknown): Promise<TlsFailure> {
    const failure = asFailure(error);
    if (ended) return failure;
    ended = true;
    try {
      readController?.error(failure);
    } catch {
      // already closed or errored
    }
    hooks.failed(failure);
    // Stop reading at once; tear the raw stream down once the alert has gone out.
    void layer.abortReading(failure);
    if (failure.alert) await layer.sendAlert(failure.alert);
    await layer.abort(failure);
    return failure;
  }

  async function onPostHandshake(message: HandshakeMessage): Promise<void> {
    if (message.type !== HandshakeType.keyUpdate)
      throw protocolError("unexpected_message", `handshake type ${message.type} after the handshake`);
    if (message.body.length !== 1) throw protocolError("decode_error", "a KeyUpdate body is one byte");
    const request = message.body[0]!;
    if (request > 1) throw protocolError("illegal_parameter", `KeyUpdate request_update ${request}`);
    if (assembler.pending > 0) throw protocolError("unexpected_message", "a KeyUpdate not at a record boundary");
    keyUpdates.spend();
    clientSecret = await nextTrafficSecret(clientSecret);
    layer.readCipher = await RecordCipher.create(await deriveTrafficKeys(clientSecret));
    if (request === 1) {
      // Our KeyUpdate goes out under the old key, then every later record uses the new one (§4.6.3).
      layer
        .sendThenRekey(ContentType.handshake, serializeKeyUpdate(false), async () => {
          serverSecret = await nextTrafficSecret(serverSecret);
          return RecordCipher.create(await deriveTrafficKeys(serverSecret));
        })
        .catch((error: unknown) => fail(error));
    }
    hooks.keyUpdated();
  }

  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      readController = controller;
    },
    async pull(controller) {
      try {
        for (;;) {
          const record = await layer.read();
          if (record === null) {
            // The raw stream ended (with or without close_notify): the plaintext ends too.
            controller.close();
            readDone = true;
            maybeClosed();
            return;
          }
          if (!record.protected) throw protocolError("unexpected_message", "an unprotected record after the handshake");
          keyUpdates.countRecord();
          if (record.type === ContentType.applicationData) {
            if (record.content.length === 0) continue;
            controller.enqueue(record.content);
            return;
          }
          if (record.type === ContentType.handshake) {
            if (record.content.length === 0) throw protocolError("unexpected_message", "an empty handshake record");
            assembler.push(record.content);
            for (let message = assembler.next(); message; message = assembler.next()) await onPostHandshake(message);
            continue;
          }
          if (record.type === ContentType.alert) {
            if (record.content.length === 2 && record.content[1] === 0) {
              controller.close();
              readDone = true;
              maybeClosed();
              return;
            }
            if (record.content.length === 2 && record.content[1] === ALERT_USER_CANCELED) continue;
            throw peerAlertFailure(record.content, "after the handshake");
          }
          throw protocolError("unexpected_message", "change_cipher_spec after the handshake");
        }
      } catch (error) {
        await fail(error);
      }
    },
    async cancel(reason) {
      readDone = true;
      await layer.abortReading(reason);
      maybeClosed();
    },
  });

  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      return layer.write(chunk);
    },
    async close() {
      // close_notify follows the data still being coalesced or sealed; a buffered write that
      // failed after its write() resolved fails the close, so no loss goes unreported.
      await layer.sendAlert("close_notify");
      await layer.closeWriter();
      if (layer.writeError !== null) throw layer.writeError;
      writeDone = true;
      maybeClosed();
    },
    async abort(reason) {
      await fail(asFailure(reason));
    },
  });

  return { readable, writable };
}

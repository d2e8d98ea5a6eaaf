import { createEventLog, type EventLog } from "../../log";
import type { Timers } from "../../platform";
import { fakeTimers } from "../../platform/testing/fake-timers";
import { ContentType } from "../constants";
import type { TlsFailure } from "../failure";
import { serializeKeyUpdate } from "../handshake-messages";
import { createTlsTerminator, type SessionCa } from "../index";
import { deriveTrafficKeys, nextTrafficSecret } from "../key-schedule";
import { parseRecord, RecordCipher, serializeRecord } from "../record";
import { RecordLayer } from "../record-layer";
import { type KeyUpdateLimit, openTunnel } from "../tunnel";
import { drain, memoryPipe } from "./memory-pipe";

export const CONNECT = { host: "example.com", port: 443, id: "c1" };

/** Sends `chunks` to a terminator as the client, then ends its side (unless told not to); returns what the server did. */
export async function clientSends(
  ca: SessionCa,
  chunks: Uint8Array[],
  options: { endStream?: boolean; log?: EventLog; timers?: Timers } = {},
) {
  const log = options.log ?? createEventLog();
  const terminator = createTlsTerminator({ ca, log, timers: options.timers ?? fakeTimers() });
  const pipe = memoryPipe();
  const result = terminator.terminate(pipe.server, CONNECT);
  const output = drain(pipe.client.readable);
  const writer = pipe.client.writable.getWriter();
  try {
    for (const chunk of chunks) await writer.write(chunk);
  } catch {
    // the server stopped reading after refusing: a real client's write fails the same way
  }
  if (options.endStream !== false) await writer.close().catch(() => undefined);
  return { result, output, log, writer };
}

const CLIENT_SECRET = new Uint8Array(32).fill(0x11);
const SERVER_SECRET = new Uint8Array(32).fill(0x22);

/**
 * An established tunnel with known secrets, skipping the handshake: the test plays the
 * client, sealing records with the client's keys (and rotating them on its KeyUpdates), and
 * reads the plaintext side and every record the server sent back.
 */
export async function establishedTunnel(options: { keyUpdates?: KeyUpdateLimit } = {}) {
  const pipe = memoryPipe();
  const layer = new RecordLayer(pipe.server.readable.getReader(), pipe.server.writable.getWriter());
  layer.readCipher = await RecordCipher.create(await deriveTrafficKeys(CLIENT_SECRET));
  await layer.setWriteCipher(await RecordCipher.create(await deriveTrafficKeys(SERVER_SECRET)));
  const outcome = { keyUpdates: 0, failure: null as TlsFailure | null, closed: false };
  const plain = openTunnel(
    layer,
    {
      sni: CONNECT.host,
      alpn: null,
      certFingerprint: "",
      resumed: false,
      clientApplicationTrafficSecret: CLIENT_SECRET,
      serverApplicationTrafficSecret: SERVER_SECRET,
    },
    {
      keyUpdated: () => void outcome.keyUpdates++,
      failed: (failure) => {
        outcome.failure = failure;
      },
      closed: () => {
        outcome.closed = true;
      },
    },
    options.keyUpdates ? { keyUpdates: options.keyUpdates } : {},
  );
  const raw = drain(pipe.client.readable);
  const writer = pipe.client.writable.getWriter();
  let secret: Uint8Array = CLIENT_SECRET;
  let cipher = await RecordCipher.create(await deriveTrafficKeys(secret));

  const client = {
    /** One protected record of `type` with `content`, as raw bytes (not sent). */
    async sealed(type: number, content: Uint8Array): Promise<Uint8Array> {
      return serializeRecord(await cipher.seal(type, content));
    },
    /** A KeyUpdate record sealed under the current key; later records use the next one. */
    async keyUpdate(requestUpdate = false): Promise<Uint8Array> {
      const record = await client.sealed(ContentType.handshake, serializeKeyUpdate(requestUpdate));
      secret = await nextTrafficSecret(secret);
      cipher = await RecordCipher.create(await deriveTrafficKeys(secret));
      return record;
    },
    /**
     * Queues raw bytes towards the server, in order, without waiting for it to read them: a
     * server that stopped reading (after a close_notify or a refusal) must not stall the test.
     */
    send(...records: Uint8Array[]): void {
      for (const record of records) writer.write(record).catch(() => undefined);
    },
    /** Ends the client's side after what was queued. */
    end(): void {
      writer.close().catch(() => undefined);
    },
  };

  /** Reads the plaintext side to its end (or error): the bytes the tunnel passed on. */
  const readPlainBytes = (): Promise<Uint8Array> => drain(plain.readable);
  /** The same, as text. */
  const readPlain = async (): Promise<string> => new TextDecoder().decode(await readPlainBytes());

  /** The records the server sent, opened with its keys (the server never rotates unless asked). */
  async function serverRecords(): Promise<{ type: number; content: Uint8Array }[]> {
    const bytes = await raw;
    const server = await RecordCipher.create(await deriveTrafficKeys(SERVER_SECRET));
    const out: { type: number; content: Uint8Array }[] = [];
    for (let at = 0; at < bytes.length; ) {
      const parsed = parseRecord(bytes.subarray(at));
      if (!parsed) break;
      at += parsed.size;
      out.push(await server.open(parsed.record));
    }
    return out;
  }

  return { client, plain, outcome, readPlain, readPlainBytes, serverRecords };
}

/** The alert descriptions among opened records. */
export const alertsIn = (records: { type: number; content: Uint8Array }[]): number[] =>
  records.filter((r) => r.type === ContentType.alert).map((r) => r.content[1]!);

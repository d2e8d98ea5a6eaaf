import { describe, expect, it } from "vitest";
import { concatBytes, fromHex, toHex, utf8 } from "../bytes";
import { parseClientHello } from "./client-hello";
import { ContentType, ECDSA_SECP256R1_SHA256, ExtensionType, HandshakeType } from "./constants";
import { TlsFailure } from "./failure";
import { checkClientHello } from "./handshake";
import { frameHandshake, HandshakeAssembler, MAX_HANDSHAKE_MESSAGE } from "./handshake-messages";
import { createSessionCa } from "./index";
import { serializeRecord } from "./record";
import { ChunkQueue } from "./record-reader";
import { buildClientHello, preSharedKeyData } from "./testing/client-hello-builder";
import { alertsIn, clientSends, establishedTunnel } from "./testing/harness";
import { arrayScanWork } from "./testing/work";
import { DEFAULT_KEY_UPDATE_LIMIT } from "./tunnel";

// No client can crash, stall or bloat the TLS server. Zero-length records
// get the alert RFC 8446 names, reassembly is linear, KeyUpdates have a budget.

const ca = await createSessionCa();
const verdictOf = (log: Awaited<ReturnType<typeof clientSends>>["log"]) => log.ofKind("tls.verdict");
const record = (type: number, fragment: Uint8Array) => serializeRecord({ type, version: 0x0303, fragment });
const EMPTY = new Uint8Array(0);

describe("zero-length records get the alert RFC 8446 §5.1 names, never internal_error", () => {
  it.each([
    ["a zero-length handshake record is an unexpected_message", record(ContentType.handshake, EMPTY), 10],
    ["a zero-length change_cipher_spec record is an unexpected_message", record(ContentType.changeCipherSpec, EMPTY), 10],
    ["a zero-length alert record is a decode_error", record(ContentType.alert, EMPTY), 50],
    ["zero-length application data before the handshake is an unexpected_message", record(ContentType.applicationData, EMPTY), 10],
  ])("%s, also when its header is the last bytes of a read", async (_name, bytes, alert) => {
    for (const chunks of [[bytes], [concatBytes(bytes, fromHex("16"))], [...bytes].map((b) => Uint8Array.of(b))]) {
      const { result, output, log } = await clientSends(ca, chunks);
      expect(await result).toBeNull();
      const verdicts = verdictOf(log);
      expect(verdicts).toHaveLength(1);
      expect(verdicts[0]?.alert).toMatch(new RegExp(`\\(${alert}\\)$`));
      expect(verdicts[0]?.reason).not.toMatch(/internal error/);
      expect(toHex(await output)).toContain(toHex(Uint8Array.of(0x15, 0x03, 0x03, 0x00, 0x02, 0x02, alert)));
    }
  });

  it("a zero-length application_data record after the handshake is allowed and passes nothing on", async () => {
    const t = await establishedTunnel();
    const plain = t.readPlain();
    t.client.send(
      await t.client.sealed(ContentType.applicationData, EMPTY),
      await t.client.sealed(ContentType.applicationData, utf8("hello")),
    );
    t.client.end();
    expect(await plain).toBe("hello");
    expect(t.outcome.failure).toBeNull();
  });

  it("a zero-length protected handshake record after the handshake is an unexpected_message", async () => {
    const t = await establishedTunnel();
    const plain = t.readPlain();
    t.client.send(await t.client.sealed(ContentType.handshake, EMPTY));
    t.client.end();
    await plain;
    expect(t.outcome.failure?.alert).toBe("unexpected_message");
    expect(alertsIn(await t.serverRecords())).toEqual([10]);
  });

  it("the record reader's queue takes zero bytes with nothing left, and counts no copy", () => {
    const queue = new ChunkQueue();
    queue.push(fromHex("1603030000"));
    queue.take(5);
    expect(queue.take(0)).toEqual(EMPTY);
    expect(queue.copied).toBe(0);
  });
});

describe("handshake reassembly does work linear in the bytes received", () => {
  const big = buildClientHello({ extra: [{ type: 21, data: new Uint8Array(MAX_HANDSHAKE_MESSAGE - 600) }] });

  it("a 64 KiB ClientHello pushed a byte at a time is copied once", () => {
    const assembler = new HandshakeAssembler();
    let message = null;
    for (const byte of big) {
      assembler.push(Uint8Array.of(byte));
      message = assembler.next() ?? message;
    }
    expect(message?.raw).toEqual(big);
    expect(assembler.copied).toBe(big.length);
    expect(assembler.pending).toBe(0);
  });

  it("a record spread over one-byte reads is copied once by the record reader's queue", () => {
    const queue = new ChunkQueue();
    const bytes = record(ContentType.handshake, big.subarray(0, 16_384));
    for (const byte of bytes) queue.push(Uint8Array.of(byte));
    queue.take(5);
    expect(queue.take(16_384)).toEqual(big.subarray(0, 16_384));
    expect(queue.copied).toBe(5 + 16_384);
    expect(queue.length).toBe(0);
  });

  it("a 64 KiB ClientHello in one-byte records completes the handshake's first flight", async () => {
    const records = [...big].map((b) => record(ContentType.handshake, Uint8Array.of(b)));
    const { result, output } = await clientSends(ca, [concatBytes(...records)]);
    await result;
    expect(toHex((await output).subarray(0, 6))).toBe("160303007a02"); // a ServerHello
  });

  it("a handshake message of an unexpected type is refused at its header, before its body is waited for", async () => {
    const header = record(ContentType.handshake, frameHandshake(HandshakeType.certificate, new Uint8Array(60_000)).subarray(0, 4));
    const { result, log, writer } = await clientSends(ca, [header], { endStream: false });
    expect(await result).toBeNull();
    expect(verdictOf(log)[0]).toMatchObject({
      alert: "unexpected_message(10)",
      reason: expect.stringMatching(/expected the first ClientHello/),
    });
    await writer.close().catch(() => undefined);
  });

  it("a post-handshake message other than KeyUpdate is refused at its header", async () => {
    const t = await establishedTunnel();
    const plain = t.readPlain();
    t.client.send(await t.client.sealed(ContentType.handshake, fromHex("04008000"))); // a 32 KiB NewSessionTicket header
    await plain;
    expect(t.outcome.failure?.alert).toBe("unexpected_message");
    t.client.end();
  });

  it("16,000 empty extensions are parsed with array-search work linear in the ClientHello's size", () => {
    const extra = Array.from({ length: 16_000 }, (_, i) => ({ type: 1000 + i, data: EMPTY }));
    const body = buildClientHello({ extra }).subarray(4);
    const { result, work } = arrayScanWork(() => parseClientHello(body));
    expect(result?.extensionTypes).toHaveLength(16_000 + 5);
    expect(work).toBeLessThan(4 * body.length);
  });

  it("8,000 tiny key shares are parsed and checked with array-search work linear in the ClientHello's size", () => {
    const keyShares = Array.from({ length: 8000 }, (_, i) => ({ group: i + 1, key: Uint8Array.of(1) }));
    const groups = Array.from({ length: 8000 }, (_, i) => i + 1);
    const body = buildClientHello({ keyShares, groups }).subarray(4);
    const { result, work } = arrayScanWork(() => checkClientHello(parseClientHello(body), "example.com", ECDSA_SECP256R1_SHA256));
    expect(result).toBe("example.com");
    expect(work).toBeLessThan(4 * body.length);
  });

  it("two key shares for one group are still refused as illegal_parameter", () => {
    const body = buildClientHello({
      keyShares: [
        { group: 0x1d, key: Uint8Array.of(1) },
        { group: 0x1d, key: Uint8Array.of(2) },
      ],
    }).subarray(4);
    expect(() => parseClientHello(body)).toThrow(/two key shares/);
  });

  it("an extension after pre_shared_key is still refused as illegal_parameter", () => {
    const body = buildClientHello({
      extra: [
        { type: ExtensionType.preSharedKey, data: preSharedKeyData([{ identity: Uint8Array.of(1) }], [new Uint8Array(32)]) },
        { type: 999, data: EMPTY },
      ],
    }).subarray(4);
    expect(() => parseClientHello(body)).toThrow(TlsFailure);
    expect(() => parseClientHello(body)).toThrow(/pre_shared_key is not the last/);
  });
});

describe("a client may rotate its keys only so often: past the budget a KeyUpdate is an unexpected_message", () => {
  it(`the default allows ${DEFAULT_KEY_UPDATE_LIMIT.updates} KeyUpdates in a row and refuses the next`, async () => {
    const t = await establishedTunnel();
    const plain = t.readPlain();
    for (let i = 0; i <= DEFAULT_KEY_UPDATE_LIMIT.updates; i++) t.client.send(await t.client.keyUpdate());
    await plain;
    expect(t.outcome.keyUpdates).toBe(DEFAULT_KEY_UPDATE_LIMIT.updates);
    expect(t.outcome.failure).toMatchObject({
      alert: "unexpected_message",
      reason: expect.stringMatching(/more than 8 KeyUpdates within 1024 records/),
    });
    t.client.end();
    expect(alertsIn(await t.serverRecords())).toEqual([10]);
  });

  it("KeyUpdates spread out by enough records are all served, and the data still arrives", async () => {
    const t = await establishedTunnel({ keyUpdates: { updates: 2, records: 6 } });
    const plain = t.readPlain();
    for (let round = 0; round < 5; round++) {
      t.client.send(await t.client.keyUpdate(round % 2 === 0));
      for (let i = 0; i < 3; i++) t.client.send(await t.client.sealed(ContentType.applicationData, utf8(`${round}.${i} `)));
    }
    t.client.end();
    expect(await plain).toBe("0.0 0.1 0.2 1.0 1.1 1.2 2.0 2.1 2.2 3.0 3.1 3.2 4.0 4.1 4.2 ");
    expect(t.outcome.keyUpdates).toBe(5);
    expect(t.outcome.failure).toBeNull();
  });

  it("three KeyUpdates within six records, with a budget of two, are refused at the third", async () => {
    const t = await establishedTunnel({ keyUpdates: { updates: 2, records: 6 } });
    const plain = t.readPlain();
    t.client.send(await t.client.keyUpdate(), await t.client.sealed(ContentType.applicationData, utf8("a")));
    t.client.send(await t.client.keyUpdate(), await t.client.sealed(ContentType.applicationData, utf8("b")));
    t.client.send(await t.client.keyUpdate());
    expect(await plain).toBe("ab");
    expect(t.outcome.keyUpdates).toBe(2);
    expect(t.outcome.failure?.alert).toBe("unexpected_message");
    t.client.end();
  });
});

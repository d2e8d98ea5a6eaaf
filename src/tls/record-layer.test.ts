import { describe, expect, it } from "vitest";
import { concatBytes, fromHex, toHex, utf8 } from "../bytes";
import { ContentType, HandshakeType, MAX_PLAINTEXT } from "./constants";
import { TlsFailure } from "./failure";
import { serializeKeyUpdate } from "./handshake-messages";
import type { TrafficKeys } from "./key-schedule";
import { parseRecord, RecordCipher, serializeRecord } from "./record";
import { RecordLayer } from "./record-layer";
import { drain, memoryPipe } from "./testing/memory-pipe";

// The record layer (RFC 8446 §5) as a peer sees it: every test reads the raw bytes the layer
// wrote, parses them record by record and opens them with its own copy of the keys, in
// order, so a record sealed with the wrong key or sequence number fails authentication.

const KEYS_A: TrafficKeys = { key: new Uint8Array(16).fill(0xa1), iv: new Uint8Array(12).fill(0xa2) };
const KEYS_B: TrafficKeys = { key: new Uint8Array(16).fill(0xb1), iv: new Uint8Array(12).fill(0xb2) };

function random(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += 65536) crypto.getRandomValues(out.subarray(at, Math.min(length, at + 65536)));
  return out;
}

/** A layer whose raw side is a memory pipe; `peer` is the other end. */
function layerOnPipe() {
  const pipe = memoryPipe();
  const layer = new RecordLayer(pipe.server.readable.getReader(), pipe.server.writable.getWriter());
  return { layer, peer: pipe.client };
}

interface OpenedRecord {
  type: number;
  content: Uint8Array;
}

/** Opens every record of `raw` as the peer would, moving to the next key after each KeyUpdate. */
async function peerOpens(raw: Uint8Array, keys: TrafficKeys[]): Promise<OpenedRecord[]> {
  let next = 0;
  let cipher = await RecordCipher.create(keys[next++]!);
  const records: OpenedRecord[] = [];
  for (let at = 0; at < raw.length; ) {
    const parsed = parseRecord(raw.subarray(at));
    if (!parsed) throw new Error(`the raw stream ends inside a record at byte ${at}`);
    at += parsed.size;
    const opened = await cipher.open(parsed.record);
    records.push(opened);
    if (opened.type === ContentType.handshake && opened.content[0] === HandshakeType.keyUpdate)
      cipher = await RecordCipher.create(keys[next++]!);
  }
  return records;
}

const applicationData = (records: OpenedRecord[]) => records.filter((r) => r.type === ContentType.applicationData);
const joined = (records: OpenedRecord[]) => concatBytes(...records.map((r) => r.content));
const CLOSE_NOTIFY = { type: ContentType.alert, content: Uint8Array.of(1, 0) };

describe("writes are coalesced into records of at most 2^14 bytes (RFC 8446 §5.1)", () => {
  it("a 1-byte write then a 40 KiB write arrive intact and in order, no record over 2^14, then close_notify", async () => {
    const { layer, peer } = layerOnPipe();
    const raw = drain(peer.readable);
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    const big = random(40 * 1024);
    await layer.write(Uint8Array.of(0x2a));
    await layer.write(big);
    await layer.sendAlert("close_notify");
    await layer.closeWriter();
    const records = await peerOpens(await raw, [KEYS_A]);
    const data = applicationData(records);
    expect(toHex(joined(data))).toBe(toHex(concatBytes(Uint8Array.of(0x2a), big)));
    expect(Math.max(...data.map((r) => r.content.length))).toBeLessThanOrEqual(MAX_PLAINTEXT);
    expect(data.length).toBeLessThanOrEqual(4); // 1 + ⌈40 KiB / 16 KiB⌉: the big write is never cut finer
    expect(records.at(-1)).toEqual(CLOSE_NOTIFY);
  });

  it("small writes arriving while a record is in flight fill full records: only the first and the last are short", async () => {
    const { layer, peer } = layerOnPipe();
    const raw = drain(peer.readable);
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    const chunks = Array.from({ length: 1000 }, () => random(100));
    for (const chunk of chunks) await layer.write(chunk);
    await layer.sendAlert("close_notify");
    await layer.closeWriter();
    const data = applicationData(await peerOpens(await raw, [KEYS_A]));
    expect(toHex(joined(data))).toBe(toHex(concatBytes(...chunks)));
    expect(data[0]?.content.length).toBe(100); // nothing was in flight: sent at once, not held for more
    expect(data.slice(1, -1).every((r) => r.content.length === MAX_PLAINTEXT)).toBe(true);
    expect(data.length).toBe(1 + Math.ceil((100_000 - 100) / MAX_PLAINTEXT));
  });

  it("a small write with nothing in flight is sent at once, before any close or later write", async () => {
    const { layer, peer } = layerOnPipe();
    const reader = peer.readable.getReader();
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    await layer.write(utf8("ping"));
    const { value } = await reader.read(); // would never resolve if the layer held "ping" back
    const records = await peerOpens(value ?? new Uint8Array(0), [KEYS_A]);
    expect(records).toEqual([{ type: ContentType.applicationData, content: utf8("ping") }]);
  });

  it("records sealed together leave in one raw write, not one write per record", async () => {
    const { layer, peer } = layerOnPipe();
    const reader = peer.readable.getReader();
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    const data = random(4 * MAX_PLAINTEXT);
    await layer.write(data); // four full records, all being sealed at once
    const { value } = await reader.read();
    const records = await peerOpens(value ?? new Uint8Array(0), [KEYS_A]);
    expect(records.map((r) => r.content.length)).toEqual([MAX_PLAINTEXT, MAX_PLAINTEXT, MAX_PLAINTEXT, MAX_PLAINTEXT]);
    expect(toHex(joined(records))).toBe(toHex(data));
  });

  it("a caller may reuse its buffer once write() resolved: a held-back tail was copied", async () => {
    const { layer, peer } = layerOnPipe();
    const raw = drain(peer.readable);
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    const buffer = new Uint8Array(20_000);
    const sent: Uint8Array[] = [];
    for (let round = 1; round <= 5; round++) {
      buffer.fill(round);
      sent.push(buffer.slice());
      await layer.write(buffer);
    }
    buffer.fill(0xee);
    await layer.sendAlert("close_notify");
    await layer.closeWriter();
    expect(toHex(joined(applicationData(await peerOpens(await raw, [KEYS_A]))))).toBe(toHex(concatBytes(...sent)));
  });

  it("close_notify after pending data goes out after that data, and the raw stream then ends", async () => {
    const { layer, peer } = layerOnPipe();
    const raw = drain(peer.readable);
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    const data = random(50_000);
    void layer.write(data.subarray(0, 49_990));
    void layer.write(data.subarray(49_990));
    await layer.sendAlert("close_notify");
    await layer.closeWriter();
    const records = await peerOpens(await raw, [KEYS_A]);
    expect(toHex(joined(applicationData(records)))).toBe(toHex(data));
    expect(records.at(-1)).toEqual(CLOSE_NOTIFY);
    expect(records.filter((r) => r.type === ContentType.alert)).toHaveLength(1);
  });

  it("a handshake message over 2^14 bytes is split into full records, unprotected before the keys", async () => {
    const { layer, peer } = layerOnPipe();
    const raw = drain(peer.readable);
    const message = random(40_000);
    await layer.send(ContentType.handshake, message);
    await layer.closeWriter();
    const bytes = await raw;
    const lengths: number[] = [];
    const fragments: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; ) {
      const parsed = parseRecord(bytes.subarray(at));
      if (!parsed) throw new Error("cut record");
      expect(parsed.record.type).toBe(ContentType.handshake);
      lengths.push(parsed.record.fragment.length);
      fragments.push(parsed.record.fragment);
      at += parsed.size;
    }
    expect(lengths).toEqual([MAX_PLAINTEXT, MAX_PLAINTEXT, 40_000 - 2 * MAX_PLAINTEXT]);
    expect(toHex(concatBytes(...fragments))).toBe(toHex(message));
  });

  it("a raw write that fails after write() resolved fails the next write and is kept as the layer's writeError", async () => {
    const broken = new WritableStream<Uint8Array>({
      write() {
        throw new Error("the peer reset the connection");
      },
    });
    const layer = new RecordLayer(new ReadableStream<Uint8Array>().getReader(), broken.getWriter());
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    await layer.write(utf8("lost")); // buffered: resolves before the raw write is tried
    await layer.closeWriter(); // queued after the data, so it settles after the failure
    expect(String(layer.writeError)).toMatch(/reset the connection/);
    await expect(layer.write(utf8("more"))).rejects.toThrow(/reset the connection/);
  });
});

describe("sequence numbers and key changes stay in step with the peer (RFC 8446 §5.3, §4.6.3)", () => {
  it("records sent around a KeyUpdate use the old key up to it and the new key after it", async () => {
    const { layer, peer } = layerOnPipe();
    const raw = drain(peer.readable);
    await layer.setWriteCipher(await RecordCipher.create(KEYS_A));
    const before = random(50_000);
    const after = random(50_000);
    await layer.write(before);
    const rekeyed = layer.sendThenRekey(ContentType.handshake, serializeKeyUpdate(false), () => RecordCipher.create(KEYS_B));
    await layer.write(after);
    await rekeyed;
    await layer.sendAlert("close_notify");
    await layer.closeWriter();
    const records = await peerOpens(await raw, [KEYS_A, KEYS_B]);
    const keyUpdateAt = records.findIndex((r) => r.type === ContentType.handshake);
    expect(toHex(joined(applicationData(records.slice(0, keyUpdateAt))))).toBe(toHex(before));
    expect(toHex(joined(applicationData(records.slice(keyUpdateAt + 1))))).toBe(toHex(after));
    expect(records.at(-1)).toEqual(CLOSE_NOTIFY);
  });

  it("reproduces RFC 8448 §3's server application data record, the second record under its key", async () => {
    const { layer, peer } = layerOnPipe();
    const raw = drain(peer.readable);
    const keys = { key: fromHex("9f02283b6c9c07efc26bb9f2ac92e356"), iv: fromHex("cf782b88dd83549aadf1e984") };
    await layer.setWriteCipher(await RecordCipher.create(keys));
    await layer.send(ContentType.handshake, Uint8Array.of(4, 0, 0, 0)); // stands in for the NewSessionTicket (sequence 0)
    await layer.write(Uint8Array.from({ length: 50 }, (_, i) => i));
    await layer.closeWriter();
    const bytes = await raw;
    const first = parseRecord(bytes);
    expect(toHex(bytes.subarray(first?.size))).toBe(
      toHex(
        fromHex(`17 03 03 00 43 2e 93 7e 11 ef 4a c7 40 e5 38 ad 36 00 5f c4 a4 69 32 fc 32 25 d0 5f 82 aa 1b 36 e3 0e fa f9 7d 90 e6
          df fc 60 2d cb 50 1a 59 a8 fc c4 9c 4b f2 e5 f0 a2 1c 00 47 c2 ab f3 32 54 0d d0 32 e1 67 c2 95 5d`),
      ),
    );
  });
});

describe("the reader parses many records per chunk and opens them ahead, in order (RFC 8446 §5.1, §5.2)", () => {
  /** Client records: two under key A, a KeyUpdate, two under key B. */
  async function clientFlight(): Promise<Uint8Array> {
    const a = await RecordCipher.create(KEYS_A);
    const b = await RecordCipher.create(KEYS_B);
    return concatBytes(
      serializeRecord(await a.seal(ContentType.applicationData, utf8("one"))),
      serializeRecord(await a.seal(ContentType.applicationData, random(MAX_PLAINTEXT))),
      serializeRecord(await a.seal(ContentType.handshake, serializeKeyUpdate(false))),
      serializeRecord(await b.seal(ContentType.applicationData, utf8("three"))),
      serializeRecord(await b.seal(ContentType.applicationData, utf8("four"))),
    );
  }

  /** Writes `bytes` as the peer in chunks of `size`, then ends the stream. */
  async function peerSends(peer: ReturnType<typeof layerOnPipe>["peer"], bytes: Uint8Array, size: number): Promise<void> {
    const writer = peer.writable.getWriter();
    for (let at = 0; at < bytes.length; at += size) await writer.write(bytes.subarray(at, at + size));
    await writer.close();
  }

  it.each([
    ["all five records in one chunk", Number.MAX_SAFE_INTEGER],
    ["chunks of 7 bytes, splitting headers and tags", 7],
    ["chunks of 1,000 bytes", 1000],
  ])("records after a KeyUpdate that were read ahead are reopened under the new key: %s", async (_name, size) => {
    const { layer, peer } = layerOnPipe();
    const flight = await clientFlight();
    const sending = peerSends(peer, flight, size);
    layer.readCipher = await RecordCipher.create(KEYS_A);
    const first = await layer.read();
    const second = await layer.read();
    const keyUpdate = await layer.read();
    expect([first?.type, second?.type, keyUpdate?.type]).toEqual([
      ContentType.applicationData,
      ContentType.applicationData,
      ContentType.handshake,
    ]);
    expect(first?.content).toEqual(utf8("one"));
    expect(second?.content.length).toBe(MAX_PLAINTEXT);
    layer.readCipher = await RecordCipher.create(KEYS_B);
    expect((await layer.read())?.content).toEqual(utf8("three"));
    expect((await layer.read())?.content).toEqual(utf8("four"));
    expect(await layer.read()).toBeNull();
    await sending;
  });

  it("a tampered record after good ones: the good ones are delivered first, then bad_record_mac", async () => {
    const { layer, peer } = layerOnPipe();
    const a = await RecordCipher.create(KEYS_A);
    const good = serializeRecord(await a.seal(ContentType.applicationData, utf8("good")));
    const bad = serializeRecord(await a.seal(ContentType.applicationData, utf8("bad")));
    bad[bad.length - 1]! ^= 1;
    const sending = peerSends(peer, concatBytes(good, bad), Number.MAX_SAFE_INTEGER);
    layer.readCipher = await RecordCipher.create(KEYS_A);
    expect((await layer.read())?.content).toEqual(utf8("good"));
    await expect(layer.read()).rejects.toMatchObject({ alert: "bad_record_mac" });
    await sending;
  });

  it.each([
    ["a header that is not TLS", utf8("GET / HTTP/1.1\r\n"), "unexpected_message"],
    ["the stream ending inside a record", fromHex("1603030010aabb"), "decode_error"],
  ])("a whole record before %s is delivered first, then the refusal", async (_name, tail, alert) => {
    const { layer, peer } = layerOnPipe();
    const hello = serializeRecord({ type: ContentType.handshake, version: 0x0301, fragment: utf8("hello") });
    const sending = peerSends(peer, concatBytes(hello, tail), Number.MAX_SAFE_INTEGER);
    expect(await layer.read()).toEqual({ type: ContentType.handshake, content: utf8("hello"), protected: false });
    const failure = await layer.read().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TlsFailure);
    expect((failure as TlsFailure).alert).toBe(alert);
    await sending;
  });
});

import { describe, expect, it } from "vitest";
import { concatBytes, fromHex, toHex, utf8 } from "../bytes";
import { parseClientHello } from "./client-hello";
import { p1363ToDer } from "./ecdsa";
import { TlsFailure } from "./failure";
import {
  HandshakeAssembler,
  serializeCertificate,
  serializeEncryptedExtensions,
  serializeHelloRetryRequest,
  serializeKeyUpdate,
  serializeServerHello,
} from "./handshake-messages";
import { parseRecord, RecordCipher, recordNonce, serializeRecord } from "./record";
import { buildClientHello } from "./testing/client-hello-builder";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("the record layer codec (RFC 8446 §5.1)", () => {
  const record = bytes(
    0x16, //                 content type: handshake
    0x03,
    0x01, //           legacy_record_version: TLS 1.0, as in a first ClientHello
    0x00,
    0x03, //           length: 3
    0x01,
    0x02,
    0x03, //     fragment
  );

  it("serializes a record and parses it back, reporting how many bytes it used", () => {
    expect(serializeRecord({ type: 0x16, version: 0x0301, fragment: bytes(1, 2, 3) })).toEqual(record);
    const parsed = parseRecord(concatBytes(record, bytes(0x17)));
    expect(parsed?.size).toBe(8);
    expect(parsed?.record).toEqual({ type: 0x16, version: 0x0301, fragment: bytes(1, 2, 3) });
  });

  it.each([
    ["an empty buffer", 0],
    ["a header cut short", 4],
    ["a fragment cut short", 7],
  ])("waits for more bytes on %s", (_name, length) => {
    expect(parseRecord(record.subarray(0, length))).toBeNull();
  });

  it.each([
    ["a length over 2^14+256 is record_overflow", bytes(0x17, 0x03, 0x03, 0x41, 0x01), "record_overflow"],
    ["plain HTTP inside the tunnel is not TLS", utf8("GET / HTTP/1.1\r\n"), "unexpected_message"],
    ["an SSLv2-style version is protocol_version", bytes(0x16, 0x02, 0x00, 0x00, 0x01, 0x00), "protocol_version"],
  ])("refuses at once: %s", (_name, input, alert) => {
    expect(() => parseRecord(input)).toThrow(TlsFailure);
    try {
      parseRecord(input);
    } catch (error) {
      expect((error as TlsFailure).alert).toBe(alert);
    }
  });

  it("the per-record nonce is the IV XOR the sequence number, right-aligned (§5.3)", () => {
    const iv = fromHex("000102030405060708090a0b");
    expect(toHex(recordNonce(iv, 0))).toBe("000102030405060708090a0b");
    expect(toHex(recordNonce(iv, 1))).toBe("000102030405060708090a0a");
    expect(toHex(recordNonce(iv, 0x0102))).toBe("000102030405060708090b09");
  });

  it.each([
    ["sequence 0", 0],
    ["the first past 2^32", 2 ** 32 + 5],
    ["the largest exact sequence, 2^53 - 1", Number.MAX_SAFE_INTEGER],
  ])("the nonce for %s is the IV XOR the big-endian 64-bit sequence (§5.3)", (_name, sequence) => {
    const iv = fromHex("a0a1a2a3a4a5a6a7a8a9aaab");
    const expected = iv.slice();
    const big = BigInt(sequence);
    for (let i = 0; i < 8; i++) expected[4 + i]! ^= Number((big >> BigInt(56 - 8 * i)) & 0xffn);
    expect(toHex(recordNonce(iv, sequence))).toBe(toHex(expected));
  });

  it("opens RFC 8448 §3's client application data record (sequence 0 under the client application key)", async () => {
    const opener = await RecordCipher.create({ key: fromHex("17422dda596ed5d9acd890e3c63f5051"), iv: fromHex("5b78923dee08579033e523d9") });
    const parsed = parseRecord(
      fromHex(`17 03 03 00 43 a2 3f 70 54 b6 2c 94 d0 af fa fe 82 28 ba 55 cb ef ac ea 42 f9 14 aa 66 bc ab 3f 2b 98 19 a8 a5 b4
        6b 39 5b d5 4a 9a 20 44 1e 2b 62 97 4e 1f 5a 62 92 a2 97 70 14 bd 1e 3d ea e6 3a ee bb 21 69 49 15 e4`),
    );
    if (!parsed) throw new Error("the RFC record did not parse");
    expect(await opener.open(parsed.record)).toEqual({ type: 0x17, content: Uint8Array.from({ length: 50 }, (_, i) => i) });
  });

  it("one plaintext buffer can be reused at once for the next record: WebCrypto copied it when the seal started", async () => {
    const keys = { key: new Uint8Array(16).fill(3), iv: new Uint8Array(12).fill(4) };
    const sealer = await RecordCipher.create(keys);
    const opener = await RecordCipher.create(keys);
    const inner = new Uint8Array(6);
    const sealing: Promise<ArrayBuffer>[] = [];
    for (const word of ["first", "again", "third"]) {
      inner.set(utf8(word));
      inner[5] = 0x17;
      sealing.push(sealer.sealInner(inner)); // not awaited: the buffer is overwritten while sealing runs
    }
    const opened = [];
    for (const fragment of await Promise.all(sealing))
      opened.push(await opener.open({ type: 0x17, version: 0x0303, fragment: new Uint8Array(fragment) }));
    expect(opened.map((r) => new TextDecoder().decode(r.content))).toEqual(["first", "again", "third"]);
  });

  it("a sealed record opens to its content and real type; a flipped bit is bad_record_mac", async () => {
    const keys = { key: new Uint8Array(16).fill(1), iv: new Uint8Array(12).fill(2) };
    const sealer = await RecordCipher.create(keys);
    const opener = await RecordCipher.create(keys);
    const sealed = await sealer.seal(0x16, utf8("hello"));
    expect(sealed.type).toBe(0x17); // opaque_type is always application_data
    expect(sealed.fragment.length).toBe(5 + 1 + 16); // content, inner type, GCM tag
    expect(await opener.open(sealed)).toEqual({ type: 0x16, content: utf8("hello") });
    const second = await sealer.seal(0x17, utf8("x"));
    second.fragment[0]! ^= 1;
    await expect(opener.open(second)).rejects.toMatchObject({ alert: "bad_record_mac" });
  });
});

describe("handshake messages (RFC 8446 §4)", () => {
  it("reassembles a message split across records and several messages in one record", () => {
    const a = bytes(0x14, 0x00, 0x00, 0x02, 0xaa, 0xbb); // Finished, length 2
    const b = bytes(0x18, 0x00, 0x00, 0x01, 0x01); //       KeyUpdate(update_requested)
    const assembler = new HandshakeAssembler();
    assembler.push(a.subarray(0, 3));
    expect(assembler.next()).toBeNull();
    assembler.push(concatBytes(a.subarray(3), b));
    expect(assembler.next()?.body).toEqual(bytes(0xaa, 0xbb));
    expect(assembler.next()?.raw).toEqual(b);
    expect(assembler.next()).toBeNull();
    expect(assembler.pending).toBe(0);
  });

  it("refuses a handshake message longer than 64 KiB before buffering it", () => {
    const assembler = new HandshakeAssembler();
    assembler.push(bytes(0x01, 0xff, 0xff, 0xff));
    expect(() => assembler.next()).toThrow(/too large/);
  });

  it("a psk_ke ServerHello carries pre_shared_key and no key_share (RFC 8446 §4.2.9)", () => {
    const hello = serializeServerHello({ random: new Uint8Array(32).fill(0xab), legacySessionId: bytes(0x11, 0x22), selectedIdentity: 0 });
    const expected = concatBytes(
      bytes(0x02, 0x00, 0x00, 0x36), //     ServerHello, length 54
      bytes(0x03, 0x03), //                 legacy_version TLS 1.2
      new Uint8Array(32).fill(0xab), //     random
      bytes(0x02, 0x11, 0x22), //           legacy_session_id_echo
      bytes(0x13, 0x01), //                 cipher_suite TLS_AES_128_GCM_SHA256
      bytes(0x00), //                       legacy_compression_method
      bytes(0x00, 0x0c), //                 extensions length 12
      bytes(0x00, 0x2b, 0x00, 0x02, 0x03, 0x04), // supported_versions: TLS 1.3
      bytes(0x00, 0x29, 0x00, 0x02, 0x00, 0x00), // pre_shared_key: selected_identity 0
    );
    expect(toHex(hello)).toBe(toHex(expected));
  });

  it("a ServerHello selects TLS 1.3, TLS_AES_128_GCM_SHA256 and x25519", () => {
    const hello = serializeServerHello({
      random: new Uint8Array(32).fill(0xab),
      legacySessionId: bytes(0x11, 0x22),
      group: 0x1d,
      keyExchange: new Uint8Array(32).fill(0xcd),
    });
    const expected = concatBytes(
      bytes(0x02, 0x00, 0x00, 0x58), //     ServerHello, length 88
      bytes(0x03, 0x03), //                 legacy_version TLS 1.2
      new Uint8Array(32).fill(0xab), //     random
      bytes(0x02, 0x11, 0x22), //           legacy_session_id_echo
      bytes(0x13, 0x01), //                 cipher_suite TLS_AES_128_GCM_SHA256
      bytes(0x00), //                       legacy_compression_method
      bytes(0x00, 0x2e), //                 extensions length 46
      bytes(0x00, 0x2b, 0x00, 0x02, 0x03, 0x04), // supported_versions: TLS 1.3
      bytes(0x00, 0x33, 0x00, 0x24, 0x00, 0x1d, 0x00, 0x20), // key_share: x25519, 32 bytes
      new Uint8Array(32).fill(0xcd),
    );
    expect(toHex(hello)).toBe(toHex(expected));
  });

  it("a HelloRetryRequest carries the special random and names x25519", () => {
    const retry = serializeHelloRetryRequest({ legacySessionId: new Uint8Array(0), group: 0x1d });
    expect(toHex(retry.subarray(6, 38))).toBe("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c");
    expect(toHex(retry.subarray(-6))).toBe("00330002001d"); // key_share: selected_group x25519
  });

  it("EncryptedExtensions with ALPN http/1.1, and empty without", () => {
    expect(serializeEncryptedExtensions("http/1.1")).toEqual(
      concatBytes(
        bytes(0x08, 0x00, 0x00, 0x11), //   EncryptedExtensions, length 17
        bytes(0x00, 0x0f), //               extensions length 15
        bytes(0x00, 0x10, 0x00, 0x0b), //   ALPN, length 11
        bytes(0x00, 0x09, 0x08), //         protocol list length 9, name length 8
        utf8("http/1.1"),
      ),
    );
    expect(serializeEncryptedExtensions(null)).toEqual(bytes(0x08, 0x00, 0x00, 0x02, 0x00, 0x00));
  });

  it("a Certificate message has an empty context and per-certificate empty extensions", () => {
    expect(serializeCertificate([bytes(0x30, 0x00)])).toEqual(
      bytes(
        0x0b,
        0x00,
        0x00,
        0x0b, // Certificate, length 11
        0x00, //                   certificate_request_context: empty
        0x00,
        0x00,
        0x07, //       certificate_list length 7
        0x00,
        0x00,
        0x02, //       cert_data length 2
        0x30,
        0x00, //             cert_data
        0x00,
        0x00, //             extensions: none
      ),
    );
  });

  it("a KeyUpdate is one byte: update_not_requested or update_requested", () => {
    expect(serializeKeyUpdate(false)).toEqual(bytes(0x18, 0x00, 0x00, 0x01, 0x00));
    expect(serializeKeyUpdate(true)).toEqual(bytes(0x18, 0x00, 0x00, 0x01, 0x01));
  });
});

describe("ECDSA signatures: WebCrypto's P1363 r||s to TLS's DER", () => {
  it.each([
    ["plain r and s", "01".padStart(64, "0") + "02".padStart(64, "0"), "3006020101020102"],
    ["a high bit gets a 0x00 prefix", `80${"00".repeat(31)}${"7f".padStart(64, "0")}`, `3026022100${"80"}${"00".repeat(31)}02017f`],
  ])("%s", (_name, p1363, der) => {
    expect(toHex(p1363ToDer(fromHex(p1363)))).toBe(der);
  });

  it("a real WebCrypto signature converts to DER that node:crypto verifies", async () => {
    const { createPublicKey, verify } = await import("node:crypto");
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const data = utf8("signed content");
    const p1363 = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, data as BufferSource));
    const spki = Buffer.from(await crypto.subtle.exportKey("spki", pair.publicKey));
    const key = createPublicKey({ key: spki, format: "der", type: "spki" });
    expect(verify("sha256", data, key, p1363ToDer(p1363))).toBe(true);
  });
});

describe("parsing a ClientHello (RFC 8446 §4.1.2)", () => {
  it("reads RFC 8448's ClientHello: SNI, versions, groups, key share, signature algorithms", () => {
    const message = fromHex(
      `01 00 00 c0 03 03 cb 34 ec b1 e7 81 63 ba 1c 38 c6 da cb 19 6a 6d ff a2 1a 8d 99 12 ec 18 a2 ef 62 83
      02 4d ec e7 00 00 06 13 01 13 03 13 02 01 00 00 91 00 00 00 0b 00 09 00 00 06 73 65 72 76 65 72 ff 01 00 01 00 00 0a 00 14 00
      12 00 1d 00 17 00 18 00 19 01 00 01 01 01 02 01 03 01 04 00 23 00 00 00 33 00 26 00 24 00 1d 00 20 99 38 1d e5 60 e4 bd 43 d2
      3d 8e 43 5a 7d ba fe b3 c0 6e 51 c1 3c ae 4d 54 13 69 1e 52 9a af 2c 00 2b 00 03 02 03 04 00 0d 00 20 00 1e 04 03 05 03 06 03
      02 03 08 04 08 05 08 06 04 01 05 01 06 01 02 01 04 02 05 02 06 02 02 02 00 2d 00 02 01 01 00 1c 00 02 40 01`,
    );
    const hello = parseClientHello(message.subarray(4));
    expect(hello.serverName).toBe("server");
    expect(hello.supportedVersions).toEqual([0x0304]);
    expect(hello.cipherSuites).toEqual([0x1301, 0x1303, 0x1302]);
    expect(hello.supportedGroups?.slice(0, 2)).toEqual([0x001d, 0x0017]);
    expect(hello.keyShares?.map((s) => [s.group, s.keyExchange.length])).toEqual([[0x001d, 32]]);
    expect(hello.signatureAlgorithms).toContain(0x0403);
    expect(hello.legacySessionId.length).toBe(0);
    expect(hello.alpn).toBeNull();
  });

  it.each([
    ["two host names in server_name", ["a.test", "b.test"], "illegal_parameter"],
    ["a non-printable host name", "a\u0001b.test", "illegal_parameter"],
    ["an empty server_name list", [], "decode_error"],
  ])("refuses %s", (_name, serverName, alert) => {
    const body = buildClientHello({ serverName }).subarray(4);
    expect(() => parseClientHello(body)).toThrow(expect.objectContaining({ alert }));
  });

  it("every truncation of a valid ClientHello is a decode_error, never another exception", () => {
    const body = buildClientHello({ alpn: ["h2", "http/1.1"] }).subarray(4);
    for (let length = 0; length < body.length; length++) {
      let failure: unknown = null;
      try {
        parseClientHello(body.subarray(0, length));
      } catch (error) {
        failure = error;
      }
      // A cut exactly at the end of the extensions block is still a valid hello; everything else fails.
      if (failure !== null) expect(failure).toBeInstanceOf(TlsFailure);
    }
    expect(() => parseClientHello(body.subarray(0, 10))).toThrow(expect.objectContaining({ alert: "decode_error" }));
  });
});

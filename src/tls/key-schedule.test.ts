import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { concatBytes, fromHex, toHex } from "../bytes";
import { hkdfExpand, hkdfExtract, sha256 } from "./hkdf";
import {
  deriveApplicationSecrets,
  deriveEarlySecret,
  deriveHandshakeSecrets,
  deriveTrafficKeys,
  finishedVerifyData,
  nextTrafficSecret,
  resumptionBinder,
  resumptionMasterSecret,
  ticketPsk,
} from "./key-schedule";

// RFC 8448 §3 "Simple 1-RTT Handshake" (TLS_AES_128_GCM_SHA256, x25519): the values the RFC
// prints for the server side, used to check each step of the key schedule (RFC 8446 §7.1).
const RFC8448 = {
  clientHello: `01 00 00 c0 03 03 cb 34 ec b1 e7 81 63 ba 1c 38 c6 da cb 19 6a 6d ff a2 1a 8d 99 12 ec 18 a2 ef 62 83
    02 4d ec e7 00 00 06 13 01 13 03 13 02 01 00 00 91 00 00 00 0b 00 09 00 00 06 73 65 72 76 65 72 ff 01 00 01 00 00 0a 00 14 00
    12 00 1d 00 17 00 18 00 19 01 00 01 01 01 02 01 03 01 04 00 23 00 00 00 33 00 26 00 24 00 1d 00 20 99 38 1d e5 60 e4 bd 43 d2
    3d 8e 43 5a 7d ba fe b3 c0 6e 51 c1 3c ae 4d 54 13 69 1e 52 9a af 2c 00 2b 00 03 02 03 04 00 0d 00 20 00 1e 04 03 05 03 06 03
    02 03 08 04 08 05 08 06 04 01 05 01 06 01 02 01 04 02 05 02 06 02 02 02 00 2d 00 02 01 01 00 1c 00 02 40 01`,
  serverHello: `02 00 00 56 03 03 a6 af 06 a4 12 18 60 dc 5e 6e 60 24 9c d3 4c 95 93 0c 8a c5 cb 14 34 da c1 55 77 2e
    d3 e2 69 28 00 13 01 00 00 2e 00 33 00 24 00 1d 00 20 c9 82 88 76 11 20 95 fe 66 76 2b db f7 c6 72 e1 56 d6 cc 25 3b 83 3d f1
    dd 69 b1 b0 4e 75 1f 0f 00 2b 00 02 03 04`,
  serverPrivateKey: "b1 58 0e ea df 6d d5 89 b8 ef 4f 2d 56 52 57 8c c8 10 e9 98 01 91 ec 8d 05 83 08 ce a2 16 a2 1e",
  clientPublicKey: "99 38 1d e5 60 e4 bd 43 d2 3d 8e 43 5a 7d ba fe b3 c0 6e 51 c1 3c ae 4d 54 13 69 1e 52 9a af 2c",
  sharedSecret: "8b d4 05 4f b5 5b 9d 63 fd fb ac f9 f0 4b 9f 0d 35 e6 d6 3f 53 75 63 ef d4 62 72 90 0f 89 49 2d",
  earlySecret: "33 ad 0a 1c 60 7e c0 3b 09 e6 cd 98 93 68 0c e2 10 ad f3 00 aa 1f 26 60 e1 b2 2e 10 f1 70 f9 2a",
  derivedFromEarly: "6f 26 15 a1 08 c7 02 c5 67 8f 54 fc 9d ba b6 97 16 c0 76 18 9c 48 25 0c eb ea c3 57 6c 36 11 ba",
  handshakeSecret: "1d c8 26 e9 36 06 aa 6f dc 0a ad c1 2f 74 1b 01 04 6a a6 b9 9f 69 1e d2 21 a9 f0 ca 04 3f be ac",
  helloHash: "86 0c 06 ed c0 78 58 ee 8e 78 f0 e7 42 8c 58 ed d6 b4 3f 2c a3 e6 e9 5f 02 ed 06 3c f0 e1 ca d8",
  clientHandshakeTrafficSecret: "b3 ed db 12 6e 06 7f 35 a7 80 b3 ab f4 5e 2d 8f 3b 1a 95 07 38 f5 2e 96 00 74 6a 0e 27 a5 5a 21",
  serverHandshakeTrafficSecret: "b6 7b 7d 69 0c c1 6c 4e 75 e5 42 13 cb 2d 37 b4 e9 c9 12 bc de d9 10 5d 42 be fd 59 d3 91 ad 38",
  serverHandshakeKey: "3f ce 51 60 09 c2 17 27 d0 f2 e4 e8 6e e4 03 bc",
  serverHandshakeIv: "5d 31 3e b2 67 12 76 ee 13 00 0b 30",
  clientHandshakeKey: "db fa a6 93 d1 76 2c 5b 66 6a f5 d9 50 25 8d 01",
  clientHandshakeIv: "5b d3 c7 1b 83 6e 0b 76 bb 73 26 5f",
  derivedFromHandshake: "43 de 77 e0 c7 77 13 85 9a 94 4d b9 db 25 90 b5 31 90 a6 5b 3e e2 e4 f1 2d d7 a0 bb 7c e2 54 b4",
  masterSecret: "18 df 06 84 3d 13 a0 8b f2 a4 49 84 4c 5f 8a 47 80 01 bc 4d 4c 62 79 84 d5 a4 1d a8 d0 40 29 19",
  /** Transcript-Hash(ClientHello..CertificateVerify): what the server Finished covers. */
  certificateVerifyHash: "ed b7 72 5f a7 a3 47 3b 03 1e c8 ef 65 a2 48 54 93 90 01 38 a2 b9 12 91 40 7d 79 51 a0 61 10 ed",
  serverFinishedVerifyData: "9b 9b 14 1d 90 63 37 fb d2 cb dc e7 1d f4 de da 4a b4 2c 30 95 72 cb 7f ff ee 54 54 b7 8f 07 18",
  /** Transcript-Hash(ClientHello..server Finished). */
  serverFinishedHash: "96 08 10 2a 0f 1c cc 6d b6 25 0b 7b 7e 41 7b 1a 00 0e aa da 3d aa e4 77 7a 76 86 c9 ff 83 df 13",
  clientFinishedVerifyData: "a8 ec 43 6d 67 76 34 ae 52 5a c1 fc eb e1 1a 03 9e c1 76 94 fa c6 e9 85 27 b6 42 f2 ed d5 ce 61",
  clientApplicationTrafficSecret: "9e 40 64 6c e7 9a 7f 9d c0 5a f8 88 9b ce 65 52 87 5a fa 0b 06 df 00 87 f7 92 eb b7 c1 75 04 a5",
  serverApplicationTrafficSecret: "a1 1a f9 f0 55 31 f8 56 ad 47 11 6b 45 a9 50 32 82 04 b4 f4 4b fb 6b 3a 4b 4f 1f 3f cb 63 16 43",
  serverApplicationKey: "9f 02 28 3b 6c 9c 07 ef c2 6b b9 f2 ac 92 e3 56",
  serverApplicationIv: "cf 78 2b 88 dd 83 54 9a ad f1 e9 84",
  clientApplicationKey: "17 42 2d da 59 6e d5 d9 ac d8 90 e3 c6 3f 50 51",
  clientApplicationIv: "5b 78 92 3d ee 08 57 90 33 e5 23 d9",
};
const h = (spaced: string): string => toHex(fromHex(spaced));

describe("the TLS 1.3 key schedule (RFC 8446 §7.1) against RFC 8448 §3, Simple 1-RTT Handshake", () => {
  it("the x25519 shared secret from the server's private key and the client's share (WebCrypto X25519)", async () => {
    // PKCS#8 wrapping of a raw X25519 private key (RFC 8410): WebCrypto imports no raw private keys.
    const pkcs8 = concatBytes(fromHex("302e020100300506032b656e04220420"), fromHex(RFC8448.serverPrivateKey));
    const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8 as BufferSource, { name: "X25519" }, false, ["deriveBits"]);
    const publicKey = await crypto.subtle.importKey("raw", fromHex(RFC8448.clientPublicKey) as BufferSource, { name: "X25519" }, true, []);
    const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: "X25519", public: publicKey }, privateKey, 256));
    expect(toHex(shared)).toBe(h(RFC8448.sharedSecret));
  });

  it("the transcript hash of ClientHello and ServerHello", async () => {
    const hash = await sha256(concatBytes(fromHex(RFC8448.clientHello), fromHex(RFC8448.serverHello)));
    expect(toHex(hash)).toBe(h(RFC8448.helloHash));
  });

  it("early secret, derived salt, handshake secret and both handshake traffic secrets", async () => {
    const secrets = await deriveHandshakeSecrets(fromHex(RFC8448.sharedSecret), fromHex(RFC8448.helloHash));
    expect(toHex(secrets.earlySecret)).toBe(h(RFC8448.earlySecret));
    expect(toHex(secrets.derivedFromEarly)).toBe(h(RFC8448.derivedFromEarly));
    expect(toHex(secrets.handshakeSecret)).toBe(h(RFC8448.handshakeSecret));
    expect(toHex(secrets.clientHandshakeTrafficSecret)).toBe(h(RFC8448.clientHandshakeTrafficSecret));
    expect(toHex(secrets.serverHandshakeTrafficSecret)).toBe(h(RFC8448.serverHandshakeTrafficSecret));
  });

  it.each([
    ["server handshake", RFC8448.serverHandshakeTrafficSecret, RFC8448.serverHandshakeKey, RFC8448.serverHandshakeIv],
    ["client handshake", RFC8448.clientHandshakeTrafficSecret, RFC8448.clientHandshakeKey, RFC8448.clientHandshakeIv],
    ["server application", RFC8448.serverApplicationTrafficSecret, RFC8448.serverApplicationKey, RFC8448.serverApplicationIv],
    ["client application", RFC8448.clientApplicationTrafficSecret, RFC8448.clientApplicationKey, RFC8448.clientApplicationIv],
  ])("the %s write key and IV", async (_name, secret, key, iv) => {
    const keys = await deriveTrafficKeys(fromHex(secret));
    expect(toHex(keys.key)).toBe(h(key));
    expect(toHex(keys.iv)).toBe(h(iv));
  });

  it("master secret and both application traffic secrets", async () => {
    const secrets = await deriveApplicationSecrets(fromHex(RFC8448.handshakeSecret), fromHex(RFC8448.serverFinishedHash));
    expect(toHex(secrets.derivedFromHandshake)).toBe(h(RFC8448.derivedFromHandshake));
    expect(toHex(secrets.masterSecret)).toBe(h(RFC8448.masterSecret));
    expect(toHex(secrets.clientApplicationTrafficSecret)).toBe(h(RFC8448.clientApplicationTrafficSecret));
    expect(toHex(secrets.serverApplicationTrafficSecret)).toBe(h(RFC8448.serverApplicationTrafficSecret));
  });

  it("the server and client Finished verify_data", async () => {
    const server = await finishedVerifyData(fromHex(RFC8448.serverHandshakeTrafficSecret), fromHex(RFC8448.certificateVerifyHash));
    const client = await finishedVerifyData(fromHex(RFC8448.clientHandshakeTrafficSecret), fromHex(RFC8448.serverFinishedHash));
    expect(toHex(server)).toBe(h(RFC8448.serverFinishedVerifyData));
    expect(toHex(client)).toBe(h(RFC8448.clientFinishedVerifyData));
  });

  it("a KeyUpdate gives a different secret, the same for both sides (deterministic)", async () => {
    const next = await nextTrafficSecret(fromHex(RFC8448.clientApplicationTrafficSecret));
    expect(toHex(next)).not.toBe(h(RFC8448.clientApplicationTrafficSecret));
    expect(toHex(await nextTrafficSecret(fromHex(RFC8448.clientApplicationTrafficSecret)))).toBe(toHex(next));
  });
});

// RFC 8448 §3 (the ticket) and §4 "Resumed 0-RTT Handshake" (its use), as the RFC prints them.
const RFC8448_RESUMPTION = {
  /** Transcript-Hash(ClientHello..client Finished) of §3. */
  clientFinishedHash: "20 91 45 a9 6e e8 e2 a1 22 ff 81 00 47 cc 95 26 84 65 8d 60 49 e8 64 29 42 6d b8 7c 54 ad 14 3d",
  resumptionMasterSecret: "7d f2 35 f2 03 1d 2a 05 12 87 d0 2b 02 41 b0 bf da f8 6c c8 56 23 1f 2d 5a ba 46 c4 34 ec 19 6c",
  ticketNonce: "00 00",
  psk: "4e cd 0e b6 ec 3b 4d 87 f5 d6 02 8f 92 2c a4 c5 85 1a 27 7f d4 13 11 c9 e6 2d 2c 94 92 e1 c4 f3",
  earlySecret: "9b 21 88 e9 b2 fc 6d 64 d7 1d c3 29 90 0e 20 bb 41 91 50 00 f6 78 aa 83 9c bb 79 7c b7 d8 33 2c",
  /** Transcript-Hash of §4's ClientHello truncated before its binders. */
  truncatedHelloHash: "63 22 4b 2e 45 73 f2 d3 45 4c a8 4b 9d 00 9a 04 f6 be 9e 05 71 1a 83 96 47 3a ef a0 1e 92 4a 14",
  binder: "3a dd 4f b2 d8 fd f8 22 a0 ca 3c f7 67 8e f5 e8 8d ae 99 01 41 c5 92 4d 57 bb 6f a3 1b 9e 5f 9d",
};

describe("the key schedule with a resumption PSK (RFC 8446 §4.2.11, §4.6.1, §7.1) against RFC 8448 §3 and §4", () => {
  it("the resumption master secret of §3 and the PSK of its ticket (nonce 00 00)", async () => {
    const r = RFC8448_RESUMPTION;
    const master = await resumptionMasterSecret(fromHex(RFC8448.masterSecret), fromHex(r.clientFinishedHash));
    expect(toHex(master)).toBe(h(r.resumptionMasterSecret));
    expect(toHex(await ticketPsk(master, fromHex(r.ticketNonce)))).toBe(h(r.psk));
  });

  it("the early secret is extracted from the PSK, and the handshake secrets start from it", async () => {
    const r = RFC8448_RESUMPTION;
    expect(toHex(await deriveEarlySecret(fromHex(r.psk)))).toBe(h(r.earlySecret));
    const secrets = await deriveHandshakeSecrets(fromHex(RFC8448.sharedSecret), fromHex(RFC8448.helloHash), fromHex(r.psk));
    expect(toHex(secrets.earlySecret)).toBe(h(r.earlySecret));
    expect(toHex(secrets.handshakeSecret)).not.toBe(h(RFC8448.handshakeSecret));
  });

  it("psk_ke (no (EC)DHE) extracts the handshake secret from Hash.length zeros, salted as with psk_dhe_ke (§7.1)", async () => {
    const r = RFC8448_RESUMPTION;
    const pskOnly = await deriveHandshakeSecrets(null, fromHex(RFC8448.helloHash), fromHex(r.psk));
    const withDhe = await deriveHandshakeSecrets(fromHex(RFC8448.sharedSecret), fromHex(RFC8448.helloHash), fromHex(r.psk));
    expect(toHex(pskOnly.earlySecret)).toBe(h(r.earlySecret));
    expect(toHex(pskOnly.derivedFromEarly)).toBe(toHex(withDhe.derivedFromEarly));
    // HKDF-Extract(salt, IKM) is HMAC-Hash(salt, IKM) (RFC 5869 §2.2), computed here by node:crypto.
    const expected = createHmac("sha256", pskOnly.derivedFromEarly).update(new Uint8Array(32)).digest("hex");
    expect(toHex(pskOnly.handshakeSecret)).toBe(expected);
    expect(toHex(pskOnly.handshakeSecret)).not.toBe(toHex(withDhe.handshakeSecret));
  });

  it("without a PSK the early secret is the all-zero one of §3", async () => {
    expect(toHex(await deriveEarlySecret())).toBe(h(RFC8448.earlySecret));
  });

  it("the binder of §4's ClientHello, from the early secret and the truncated ClientHello's hash", async () => {
    const r = RFC8448_RESUMPTION;
    expect(toHex(await resumptionBinder(fromHex(r.earlySecret), fromHex(r.truncatedHelloHash)))).toBe(h(r.binder));
  });
});

describe("HKDF with HMAC-SHA256 on WebCrypto (RFC 5869 Appendix A.1)", () => {
  it("Extract and Expand reproduce test case 1", async () => {
    const prk = await hkdfExtract(fromHex("000102030405060708090a0b0c"), fromHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"));
    expect(toHex(prk)).toBe("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
    const okm = await hkdfExpand(prk, fromHex("f0f1f2f3f4f5f6f7f8f9"), 42);
    expect(toHex(okm)).toBe("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  });
});

import { describe, expect, it } from "vitest";
import { concatBytes, fromHex, toHex, utf8 } from "../bytes";
import { createEventLog, type EventOf } from "../log";
import type { Timers } from "../platform";
import { fakeTimers } from "../platform/testing/fake-timers";
import { createSessionCa, createTlsTerminator, tlsTunnelHook } from "./index";
import { serializeRecord } from "./record";
import { buildClientHello, type ClientHelloSpec, clientHelloRecord } from "./testing/client-hello-builder";
import { CONNECT, clientSends as sendAsClient } from "./testing/harness";
import { drain, memoryPipe } from "./testing/memory-pipe";

const ca = await createSessionCa();
/** Sends `chunks` as the client to a terminator with this file's CA, then ends its side. */
const clientSends = (chunks: Uint8Array[], options: { timers?: Timers; endStream?: boolean } = {}) => sendAsClient(ca, chunks, options);

const alertRecord = (description: number) => toHex(Uint8Array.of(0x15, 0x03, 0x03, 0x00, 0x02, 0x02, description));
const verdictsOf = (log: ReturnType<typeof createEventLog>): EventOf<"tls.verdict">[] => log.ofKind("tls.verdict");
const hello = (spec: ClientHelloSpec) => [clientHelloRecord(spec)];
/** A handshake record of 122 bytes holding a ServerHello (with the builder's 32-byte session id echoed). */
const SERVER_HELLO_START = "160303007a02";
const x25519Share = { group: 0x1d, key: new Uint8Array(32).fill(5) };

describe("a ClientHello the server refuses gets an alert and a coded verdict (verdict table, row 5)", () => {
  it.each([
    [
      "a ClientHello naming another host than the CONNECT is sni-mismatch, by design",
      hello({ serverName: "other.example" }),
      "sni-mismatch",
      112,
      "design",
    ],
    ["a ClientHello naming no host is sni-missing", hello({ serverName: null }), "sni-missing", 109, "design"],
    ["a client without TLS 1.3 is refused with protocol_version", hello({ versions: null }), "tls-error", 70, "proxy"],
    ["a client without TLS_AES_128_GCM_SHA256 is a handshake_failure", hello({ cipherSuites: [0x1302] }), "tls-error", 40, "proxy"],
    [
      "a client that cannot verify the leaf's rsa_pss_rsae_sha256 is a handshake_failure",
      hello({ signatureAlgorithms: [0x0403] }),
      "tls-error",
      40,
      "proxy",
    ],
    [
      "a client offering only groups the server does not take (secp384r1) is a handshake_failure",
      hello({ groups: [0x18], keyShares: [{ group: 0x18, key: new Uint8Array(97).fill(4) }] }),
      "tls-error",
      40,
      "proxy",
    ],
    ["a ClientHello without key_share is missing_extension", hello({ keyShares: null }), "tls-error", 109, "proxy"],
    [
      "an x25519 share of 31 bytes is an illegal_parameter",
      hello({ keyShares: [{ group: 0x1d, key: new Uint8Array(31) }] }),
      "tls-error",
      47,
      "proxy",
    ],
    [
      "an all-zero (low-order) x25519 share is an illegal_parameter",
      hello({ keyShares: [{ group: 0x1d, key: new Uint8Array(32) }] }),
      "tls-error",
      47,
      "proxy",
    ],
    ["compression other than null is an illegal_parameter", hello({ compression: [1, 0] }), "tls-error", 47, "proxy"],
    [
      "plain HTTP inside the tunnel is an unexpected_message",
      [utf8("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")],
      "tls-error",
      10,
      "proxy",
    ],
    [
      "a first handshake message that is not a ClientHello is an unexpected_message",
      [serializeRecord({ type: 0x16, version: 0x0303, fragment: fromHex("0200000100") })],
      "tls-error",
      10,
      "proxy",
    ],
    [
      "application data before any handshake is an unexpected_message",
      [serializeRecord({ type: 0x17, version: 0x0303, fragment: fromHex("00") })],
      "tls-error",
      10,
      "proxy",
    ],
    [
      "a change_cipher_spec before the ClientHello is an unexpected_message",
      [serializeRecord({ type: 0x14, version: 0x0303, fragment: fromHex("01") })],
      "tls-error",
      10,
      "proxy",
    ],
    ["a record cut short by the end of the stream is a decode_error", [clientHelloRecord().subarray(0, 100)], "tls-error", 50, "proxy"],
    ["a record longer than 2^14+256 is a record_overflow", [fromHex("1603034101")], "tls-error", 22, "proxy"],
  ])("%s", async (_name, chunks, code, alert, by) => {
    const { result, output, log } = await clientSends(chunks);
    expect(await result).toBeNull();
    const verdicts = verdictsOf(log);
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ allowed: false, code, by, session: "c1", target: "example.com:443" });
    expect(verdicts[0]?.alert).toMatch(new RegExp(`\\(${alert}\\)$`));
    expect(toHex(await output)).toContain(alertRecord(alert));
    expect(log.ofKind("tls.session").at(-1)?.phase).toBe("failed");
  });

  it("an alert from the client is logged with its name; no alert is sent back", async () => {
    const { result, output, log } = await clientSends([fromHex("15030300020230")]); // fatal unknown_ca(48)
    expect(await result).toBeNull();
    expect(verdictsOf(log)[0]).toMatchObject({ code: "tls-error", alert: null, reason: expect.stringContaining("unknown_ca(48)") });
    expect((await output).length).toBe(0);
  });

  it("an SNI differing only in case and a trailing dot is the CONNECT host: the server answers with a ServerHello", async () => {
    const { result, output, log } = await clientSends(hello({ serverName: "EXAMPLE.com." }));
    expect(await result).toBeNull(); // the client then hung up, before its Finished
    const bytes = await output;
    expect(toHex(bytes.subarray(0, 6))).toBe(SERVER_HELLO_START);
    expect(verdictsOf(log)[0]?.reason).toMatch(/closed the connection during the handshake/);
  });

  it("a ClientHello delivered one byte per segment is reassembled", async () => {
    const record = clientHelloRecord({ alpn: ["http/1.1"] });
    const { result, output } = await clientSends([...record].map((b) => Uint8Array.of(b)));
    await result;
    expect(toHex((await output).subarray(0, 6))).toBe(SERVER_HELLO_START);
  });

  it("a ClientHello split across two handshake records is reassembled", async () => {
    const message = buildClientHello();
    const first = serializeRecord({ type: 0x16, version: 0x0301, fragment: message.subarray(0, 50) });
    const second = serializeRecord({ type: 0x16, version: 0x0301, fragment: message.subarray(50) });
    const { result, output } = await clientSends([concatBytes(first, second)]);
    await result;
    expect(toHex((await output).subarray(0, 6))).toBe(SERVER_HELLO_START);
  });

  it("a client with no share for a group the server takes gets a HelloRetryRequest, then a CCS (middlebox compatibility)", async () => {
    const noShare = { groups: [0x1d, 0x17], keyShares: [] };
    const { result, output, log } = await clientSends([clientHelloRecord(noShare), clientHelloRecord(noShare)]);
    expect(await result).toBeNull();
    const bytes = toHex(await output);
    expect(bytes).toContain("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"); // HRR random
    expect(bytes).toContain("140303000101"); // one change_cipher_spec record
    expect(verdictsOf(log)[0]).toMatchObject({ code: "tls-error", reason: expect.stringMatching(/still has no x25519 key share/) });
    expect(log.ofKind("tls.session").at(-1)?.helloRetry).toBe(true);
  });

  it("a client that goes silent is refused when the handshake timer fires, with user_canceled", async () => {
    const timers = fakeTimers();
    const { result, output, log } = await clientSends([clientHelloRecord().subarray(0, 20)], { timers, endStream: false });
    timers.fireArmed();
    expect(await result).toBeNull();
    expect(verdictsOf(log)[0]).toMatchObject({
      code: "tls-error",
      alert: "user_canceled(90)",
      reason: expect.stringMatching(/did not complete within/),
    });
    expect(toHex(await output)).toContain("1503030002015a"); // warning user_canceled
  });
});

describe("the proxy's tunnel hook", () => {
  it("serves the plaintext only after a handshake: a refused tunnel never reaches serveTunnel", async () => {
    const log = createEventLog();
    const hook = tlsTunnelHook(createTlsTerminator({ ca, log, timers: fakeTimers() }));
    const pipe = memoryPipe();
    const served: string[] = [];
    const output = drain(pipe.client.readable);
    const opened = hook.open(pipe.server, { ...CONNECT, serveTunnel: async (_plain, sessionId) => void served.push(sessionId) });
    const writer = pipe.client.writable.getWriter();
    await writer.write(clientHelloRecord({ serverName: "other.example" }));
    await writer.close();
    await opened;
    await output;
    expect(served).toEqual([]);
    expect(verdictsOf(log)[0]?.code).toBe("sni-mismatch");
  });
});

describe("fuzzed ClientHellos and records: every one ends in one verdict, never an exception or a hang", () => {
  // A small deterministic PRNG (xorshift32) so a failure can be replayed.
  function prng(seed: number): () => number {
    let x = seed;
    return () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
  }
  const valid = concatBytes(clientHelloRecord({ alpn: ["h2", "http/1.1"], keyShares: [x25519Share] }));

  it.each([1, 2, 3, 4])("seed %i: 60 mutated or truncated ClientHellos in random segments", async (seed) => {
    const random = prng(seed * 7919);
    for (let round = 0; round < 60; round++) {
      const input = valid.slice();
      const flips = 1 + Math.floor(random() * 4);
      for (let i = 0; i < flips; i++) input[Math.floor(random() * input.length)] = Math.floor(random() * 256);
      const cut = random() < 0.3 ? Math.floor(random() * input.length) : input.length;
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < cut; ) {
        const size = 1 + Math.floor(random() * 300);
        chunks.push(input.subarray(at, Math.min(cut, at + size)));
        at += size;
      }
      const { result, output, log } = await clientSends(chunks);
      expect(await result).toBeNull();
      await output;
      const verdicts = verdictsOf(log);
      expect(verdicts, `seed ${seed} round ${round}`).toHaveLength(1);
      expect(["tls-error", "sni-mismatch", "sni-missing"]).toContain(verdicts[0]?.code);
    }
  });
});

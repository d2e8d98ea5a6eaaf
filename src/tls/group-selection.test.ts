import { describe, expect, it } from "vitest";
import { toHex } from "../bytes";
import type { EventOf } from "../log";
import { parseClientHello } from "./client-hello";
import { selectGroup } from "./handshake";
import { createSessionCa } from "./index";
import { probeServerGroups } from "./key-exchange";
import { buildClientHello, type ClientHelloSpec, clientHelloRecord } from "./testing/client-hello-builder";
import { p256ClientKey, x25519ClientKey } from "./testing/client-keys";
import { clientSends } from "./testing/harness";
import { serverHellosIn } from "./testing/server-hello-reader";

// Which key exchange group the server uses (RFC 8446 §4.1.1, §4.2.8): a share the client sent
// for a group the server takes, the server's preference first; else a HelloRetryRequest for
// the server's preferred group in supported_groups; else handshake_failure. Completed
// handshakes with real clients are in interop.test.ts.

const ca = await createSessionCa();
const X25519 = 0x001d;
const SECP256R1 = 0x0017;
const SECP384R1 = 0x0018;
const X25519MLKEM768 = 0x11ec;
const p256 = await p256ClientKey();
const x25519 = await x25519ClientKey();
const p256Share = { group: SECP256R1, key: p256.share };
const x25519Share = { group: X25519, key: x25519.share };
/** A syntactically plausible P-384 share: the server never looks inside it. */
const p384Share = { group: SECP384R1, key: new Uint8Array(97).fill(4) };

const selected = (spec: ClientHelloSpec) => {
  const { group, share } = selectGroup(parseClientHello(buildClientHello(spec).subarray(4)));
  return { group: group.name, share: share && toHex(share) };
};
const verdictsOf = (log: { ofKind(kind: "tls.verdict"): EventOf<"tls.verdict">[] }) => log.ofKind("tls.verdict");

describe("the server uses a key share the client sent, for the most preferred group it takes, without a HelloRetryRequest", () => {
  it("a P-256-only client's share is used", () => {
    expect(selected({ groups: [SECP256R1], keyShares: [p256Share] })).toEqual({ group: "secp256r1", share: toHex(p256.share) });
  });

  it("a client listing x25519 but sending only a P-256 share gets P-256, not a HelloRetryRequest for x25519", () => {
    expect(selected({ groups: [X25519, SECP256R1], keyShares: [p256Share] })).toEqual({ group: "secp256r1", share: toHex(p256.share) });
  });

  it("a client sending shares for both gets x25519, the server's preference, even listing P-256 first", () => {
    const spec = { groups: [SECP256R1, X25519], keyShares: [p256Share, x25519Share] };
    expect(selected(spec)).toEqual({ group: "x25519", share: toHex(x25519.share) });
  });

  it("a share for a group the server does not take is passed over for one it takes", () => {
    expect(selected({ groups: [SECP384R1, SECP256R1], keyShares: [p384Share, p256Share] }).group).toBe("secp256r1");
  });

  it("no share for a group the server takes: the server's preferred group in supported_groups, to ask for", () => {
    expect(selected({ groups: [SECP256R1, X25519], keyShares: [] })).toEqual({ group: "x25519", share: null });
    expect(selected({ groups: [SECP384R1, SECP256R1], keyShares: [p384Share] })).toEqual({ group: "secp256r1", share: null });
  });

  it("no group the server takes at all: handshake_failure, also from the selection itself", () => {
    expect(() => selected({ groups: [SECP384R1], keyShares: [p384Share] })).toThrow(
      expect.objectContaining({
        alert: "handshake_failure",
        reason: "the client offers only secp384r1; this server takes x25519 or secp256r1",
      }),
    );
  });
});

describe("the server's first answer names the group it chose", () => {
  it("a P-256-only client gets a ServerHello with an uncompressed secp256r1 share and no HelloRetryRequest", async () => {
    const { result, output, log } = await clientSends(ca, [clientHelloRecord({ groups: [SECP256R1], keyShares: [p256Share] })]);
    expect(await result).toBeNull(); // the client then hung up, before its Finished
    const hellos = serverHellosIn(await output);
    expect(hellos).toHaveLength(1);
    expect(hellos[0]).toMatchObject({ helloRetry: false, group: SECP256R1 });
    expect(hellos[0]?.keyExchange).toHaveLength(65);
    expect(hellos[0]?.keyExchange?.[0]).toBe(0x04);
    // The server's share is a point the client's WebCrypto accepts and derives a secret from.
    expect(await p256.secretWith(hellos[0]!.keyExchange!)).toHaveLength(32);
    expect(verdictsOf(log)[0]?.reason).toMatch(/closed the connection during the handshake/);
  });

  it("a client listing x25519 and sending only a P-256 share gets a secp256r1 ServerHello, no HelloRetryRequest", async () => {
    const { output } = await clientSends(ca, [clientHelloRecord({ groups: [X25519, SECP256R1], keyShares: [p256Share] })]);
    expect(serverHellosIn(await output).map((h) => [h.helloRetry, h.group])).toEqual([[false, SECP256R1]]);
  });

  it("a client listing both groups but sending no share gets a HelloRetryRequest for x25519; its x25519 share is then used", async () => {
    const first = clientHelloRecord({ groups: [SECP256R1, X25519], keyShares: [] });
    const second = clientHelloRecord({ groups: [SECP256R1, X25519], keyShares: [x25519Share] });
    const { output, log } = await clientSends(ca, [first, second]);
    expect(serverHellosIn(await output).map((h) => [h.helloRetry, h.group])).toEqual([
      [true, X25519],
      [false, X25519],
    ]);
    expect(log.ofKind("tls.session").at(-1)?.helloRetry).toBe(true);
  });

  it("a client whose only share is for a group the server does not take gets a HelloRetryRequest for secp256r1, then P-256 is used", async () => {
    const first = clientHelloRecord({ groups: [SECP384R1, SECP256R1], keyShares: [p384Share] });
    const second = clientHelloRecord({ groups: [SECP384R1, SECP256R1], keyShares: [p256Share] });
    const { output } = await clientSends(ca, [first, second]);
    const hellos = serverHellosIn(await output);
    expect(hellos.map((h) => [h.helloRetry, h.group])).toEqual([
      [true, SECP256R1],
      [false, SECP256R1],
    ]);
    expect(await p256.secretWith(hellos[1]!.keyExchange!)).toHaveLength(32);
  });
});

describe("a client the server cannot agree a group with is refused with a coded verdict", () => {
  it.each([
    [[SECP384R1, X25519MLKEM768], "the client offers only secp384r1, X25519MLKEM768; this server takes x25519 or secp256r1"],
    [[], "the client offers no key exchange group; this server takes x25519 or secp256r1"],
  ])("supported_groups %j: handshake_failure naming what was offered and what the server takes", async (groups, reason) => {
    const keyShares = groups.includes(SECP384R1) ? [p384Share] : [];
    const { result, output, log } = await clientSends(ca, [clientHelloRecord({ groups, keyShares })]);
    expect(await result).toBeNull();
    expect(verdictsOf(log)).toEqual([expect.objectContaining({ code: "tls-error", alert: "handshake_failure(40)", reason })]);
    expect(toHex(await output)).toBe("15030300020228"); // the alert, nothing else
  });

  it.each([
    [
      "a second ClientHello with only a P-256 share after a HelloRetryRequest for x25519",
      { groups: [SECP256R1, X25519], keyShares: [] },
      { groups: [SECP256R1, X25519], keyShares: [p256Share] },
      "the second ClientHello still has no x25519 key share (the group the HelloRetryRequest named)",
    ],
    [
      "a second ClientHello with the x25519 share and a P-256 one after a HelloRetryRequest for x25519",
      { groups: [SECP256R1, X25519], keyShares: [] },
      { groups: [SECP256R1, X25519], keyShares: [x25519Share, p256Share] },
      "the second ClientHello has 2 key shares; after the HelloRetryRequest it may carry only the x25519 one",
    ],
    [
      "a second ClientHello repeating its P-384 share after a HelloRetryRequest for secp256r1",
      { groups: [SECP384R1, SECP256R1], keyShares: [p384Share] },
      { groups: [SECP384R1, SECP256R1], keyShares: [p384Share] },
      "the second ClientHello still has no secp256r1 key share (the group the HelloRetryRequest named)",
    ],
  ])("%s is an illegal_parameter", async (_name, first, second, reason) => {
    const { result, log } = await clientSends(ca, [clientHelloRecord(first), clientHelloRecord(second)]);
    expect(await result).toBeNull();
    expect(verdictsOf(log)).toEqual([expect.objectContaining({ code: "tls-error", alert: "illegal_parameter(47)", reason })]);
  });

  it("a P-256 share that is not a point on the curve is an illegal_parameter, before any ServerHello", async () => {
    const offCurve = p256.share.slice();
    offCurve[64]! ^= 1;
    const { result, output, log } = await clientSends(ca, [
      clientHelloRecord({ groups: [SECP256R1], keyShares: [{ group: SECP256R1, key: offCurve }] }),
    ]);
    expect(await result).toBeNull();
    expect(verdictsOf(log)[0]).toMatchObject({
      alert: "illegal_parameter(47)",
      reason: "the secp256r1 key share is not a point on the curve",
    });
    expect(serverHellosIn(await output)).toEqual([]);
  });
});

describe("in an engine whose WebCrypto lacks X25519, the server takes P-256 only", () => {
  const withoutX25519 = probeServerGroups({
    generateKey: (algorithm: AlgorithmIdentifier) =>
      (typeof algorithm === "object" && algorithm.name === "X25519"
        ? Promise.reject(new DOMException("Unrecognized algorithm name", "NotSupportedError"))
        : crypto.subtle.generateKey(algorithm as EcKeyGenParams, false, ["deriveBits"])) as never,
  });

  it("the probe leaves x25519 out when generating its key fails, and keeps both when it works", async () => {
    expect((await withoutX25519).map((g) => g.name)).toEqual(["secp256r1"]);
    expect((await probeServerGroups(crypto.subtle)).map((g) => g.name)).toEqual(["x25519", "secp256r1"]);
  });

  it("a client that sent an x25519 share and lists P-256 is asked for P-256 (a HelloRetryRequest)", async () => {
    const hello = parseClientHello(buildClientHello({ groups: [X25519, SECP256R1], keyShares: [x25519Share] }).subarray(4));
    const { group, share } = selectGroup(hello, await withoutX25519);
    expect({ group: group.name, share }).toEqual({ group: "secp256r1", share: null });
  });

  it("a client that offers x25519 alone is refused with a reason naming the one group left", async () => {
    const hello = parseClientHello(buildClientHello({ groups: [X25519], keyShares: [x25519Share] }).subarray(4));
    const groups = await withoutX25519;
    expect(() => selectGroup(hello, groups)).toThrow("the client offers only x25519; this server takes secp256r1");
  });
});

import { describe, expect, it } from "vitest";
import { toHex } from "../bytes";
import { TlsFailure } from "./failure";
import { groupLabel, groupList, preferredGroup, SECP256R1, SERVER_GROUPS, X25519 } from "./key-exchange";
import { compressP256, p256ClientKey, x25519ClientKey } from "./testing/client-keys";

/** The refusal an exchange ends in (a TlsFailure), or null when it succeeded. */
async function refusal(exchange: Promise<unknown>): Promise<TlsFailure | null> {
  try {
    await exchange;
    return null;
  } catch (error) {
    if (error instanceof TlsFailure) return error;
    throw error;
  }
}

describe("the server's groups, in preference order (RFC 8446 §4.2.7)", () => {
  it("x25519 (0x001d) is preferred to secp256r1 (0x0017), and nothing else is taken", () => {
    expect(SERVER_GROUPS.map((g) => [g.code, g.name])).toEqual([
      [0x001d, "x25519"],
      [0x0017, "secp256r1"],
    ]);
  });

  it("the preferred group of a list is the server's first choice among them, whatever the list's order", () => {
    expect(preferredGroup([0x0017, 0x001d])?.name).toBe("x25519");
    expect(preferredGroup([0x0018, 0x0017])?.name).toBe("secp256r1");
    expect(preferredGroup([0x0018, 0x0100, 0x11ec])).toBeNull();
    expect(preferredGroup([])).toBeNull();
  });

  it("a refusal names the groups a client offered, known ones by name, and at most eight of them", () => {
    expect(groupList([0x0018, 0x0100, 0x11ec, 0x7777])).toBe("secp384r1, ffdhe2048, X25519MLKEM768, 0x7777");
    expect(groupList(Array.from({ length: 20 }, (_, i) => 0x0200 + i))).toMatch(/^0x0200, .*, 0x0207 and 12 more$/);
    expect(groupLabel(0x0017)).toBe("secp256r1");
  });
});

describe("an x25519 key share is 32 bytes and must not give an all-zero secret", () => {
  it.each([0, 1, 31, 33, 65])("a share of %i bytes is an illegal_parameter naming its length", async (length) => {
    const failure = await refusal(X25519.exchange(new Uint8Array(length).fill(9)));
    expect(failure).toMatchObject({ alert: "illegal_parameter", reason: `an x25519 key share of ${length} bytes (it is 32)` });
  });

  it("the all-zero (low-order) share is an illegal_parameter", async () => {
    expect((await refusal(X25519.exchange(new Uint8Array(32))))?.alert).toBe("illegal_parameter");
  });

  it("a WebCrypto X25519 client and the server derive the same secret from each other's shares", async () => {
    const client = await x25519ClientKey();
    const server = await X25519.exchange(client.share);
    expect(server.publicKey).toHaveLength(32);
    expect(server.sharedSecret).toHaveLength(32);
    expect(toHex(await client.secretWith(server.publicKey))).toBe(toHex(server.sharedSecret));
  });
});

describe("a secp256r1 key share is an uncompressed point on the curve (RFC 8446 §4.2.8.2)", () => {
  it.each([0, 1, 32, 64, 66, 97])("a share of %i bytes is an illegal_parameter naming its length", async (length) => {
    const share = new Uint8Array(length).fill(4);
    const failure = await refusal(SECP256R1.exchange(share));
    expect(failure).toMatchObject({
      alert: "illegal_parameter",
      reason: `a secp256r1 key share of ${length} bytes (an uncompressed point is 65)`,
    });
  });

  it.each([0x02, 0x03])(
    "a compressed point (0x%i, 33 bytes) of a real key is refused: TLS 1.3 takes only the uncompressed form",
    async (prefix) => {
      // With X of a real key, 0x02 and 0x03 both name a point on the curve (Y and its negation).
      const compressed = compressP256((await p256ClientKey()).share);
      compressed[0] = prefix;
      const failure = await refusal(SECP256R1.exchange(compressed));
      expect(failure).toMatchObject({ alert: "illegal_parameter", reason: expect.stringMatching(/^a compressed secp256r1 key share/) });
    },
  );

  it.each([0x00, 0x02, 0x06, 0x07])("a 65-byte share starting 0x%i instead of 0x04 is an illegal_parameter", async (format) => {
    const share = (await p256ClientKey()).share;
    share[0] = format;
    expect((await refusal(SECP256R1.exchange(share)))?.alert).toBe("illegal_parameter");
  });

  it("a point off the curve (a real key with one bit of Y flipped) is an illegal_parameter", async () => {
    const share = (await p256ClientKey()).share;
    share[64]! ^= 0x01;
    const failure = await refusal(SECP256R1.exchange(share));
    expect(failure).toMatchObject({ alert: "illegal_parameter", reason: "the secp256r1 key share is not a point on the curve" });
  });

  it("the point (0, 0), which is not on the curve, is an illegal_parameter", async () => {
    const share = new Uint8Array(65);
    share[0] = 0x04;
    expect((await refusal(SECP256R1.exchange(share)))?.reason).toBe("the secp256r1 key share is not a point on the curve");
  });

  it("a WebCrypto P-256 client and the server derive the same 32-byte x-coordinate, the server's share uncompressed", async () => {
    const client = await p256ClientKey();
    const server = await SECP256R1.exchange(client.share);
    expect(server.publicKey).toHaveLength(65);
    expect(server.publicKey[0]).toBe(0x04);
    expect(server.sharedSecret).toHaveLength(32);
    expect(toHex(await client.secretWith(server.publicKey))).toBe(toHex(server.sharedSecret));
  });

  it("each exchange makes a fresh ephemeral key", async () => {
    const client = await p256ClientKey();
    const [a, b] = await Promise.all([SECP256R1.exchange(client.share), SECP256R1.exchange(client.share)]);
    expect(toHex(a.publicKey)).not.toBe(toHex(b.publicKey));
    expect(toHex(a.sharedSecret)).not.toBe(toHex(b.sharedSecret));
  });
});

import { X509Certificate as NodeX509 } from "node:crypto";
import { describe, expect, it } from "vitest";
import { caPem, createSessionCa, DEFAULT_MAX_LEAVES, loadSessionCa, startCaKeys } from "./index";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

describe("the per-session CA (the page terminates the guest's TLS with its own CA)", () => {
  it("is a CA certificate whose private key cannot be exported", async () => {
    const ca = await createSessionCa({ now: () => T0 });
    const cert = new NodeX509(caPem(ca));
    expect(cert.ca).toBe(true);
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(caPem(ca)).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(ca.keys.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey("pkcs8", ca.keys.privateKey)).rejects.toThrow();
    expect(ca.fingerprint).toBe(cert.fingerprint256.replaceAll(":", "").toLowerCase());
  });

  it("mints a leaf for the CONNECT host: SAN = host, serverAuth, not a CA, 24 h with a 1 h backdate", async () => {
    const ca = await createSessionCa({ now: () => T0 });
    const leaf = await ca.leafFor("Example.COM.");
    const cert = new NodeX509(leaf.der);
    const issuer = new NodeX509(ca.certPem);
    expect(leaf.host).toBe("example.com");
    expect(cert.subjectAltName).toBe("DNS:example.com");
    expect(cert.checkHost("example.com")).toBe("example.com");
    expect(cert.checkHost("other.example")).toBeUndefined();
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]); // extended key usage: serverAuth
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(issuer)).toBe(true);
    expect(cert.verify(issuer.publicKey)).toBe(true);
    expect(new Date(cert.validFrom).getTime()).toBe(T0 - HOUR);
    expect(new Date(cert.validTo).getTime()).toBe(T0 + 24 * HOUR);
    expect(leaf.privateKey.extractable).toBe(false);
    expect(leaf.chain).toEqual([leaf.der]);
  });

  it("signs its leaves with RSA-2048 by default, the key type whose verification is cheapest for the guest", async () => {
    const ca = await createSessionCa({ now: () => T0 });
    const issuer = new NodeX509(ca.certPem);
    const cert = new NodeX509((await ca.leafFor("example.com")).der);
    expect(issuer.publicKey.asymmetricKeyType).toBe("rsa");
    expect(cert.publicKey.asymmetricKeyType).toBe("rsa");
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(cert.verify(issuer.publicKey)).toBe(true);
  });

  it("takes the key pairs a host started before it loaded the CA's code, for the CA and for its leaves", async () => {
    const keys = startCaKeys(true);
    const [caKeys, leafKeys] = await Promise.all([keys.ca, keys.leaf]);
    const ca = await createSessionCa({ now: () => T0, keys });
    expect(ca.keys).toBe(caKeys);
    const spki = async (key: CryptoKey | undefined) => Buffer.from(await crypto.subtle.exportKey("spki", key as CryptoKey)).toString("hex");
    const der = (cert: NodeX509) => cert.publicKey.export({ type: "spki", format: "der" }).toString("hex");
    expect(der(new NodeX509(ca.certPem))).toBe(await spki(caKeys?.publicKey));
    const leaf = new NodeX509((await ca.leafFor("example.com")).der);
    expect(der(leaf)).toBe(await spki(leafKeys?.publicKey));
    expect(leaf.verify(new NodeX509(ca.certPem).publicKey)).toBe(true);
  });

  it("starts no CA key pair when there is a CA to load, and a loaded CA takes the leaves' pair", async () => {
    const stored = await createSessionCa({ now: () => T0 });
    const keys = startCaKeys(false);
    expect(keys.ca).toBeUndefined();
    const loaded = await loadSessionCa({ keys: stored.keys, certPem: stored.certPem }, { now: () => T0, keys });
    const leaf = new NodeX509((await loaded.leafFor("example.com")).der);
    const leafKeys = await keys.leaf;
    expect(leaf.publicKey.export({ type: "spki", format: "der" }).toString("hex")).toBe(
      Buffer.from(await crypto.subtle.exportKey("spki", leafKeys?.publicKey as CryptoKey)).toString("hex"),
    );
  });

  it("mints ahead the leaves of the names it is given, skipping wildcard patterns", async () => {
    let now = T0;
    const ca = await createSessionCa({ now: () => now });
    ca.prepare(["api.github.com", "*.example.com"]);
    now = T0 + 10 * 60_000;
    const leaf = await ca.leafFor("api.github.com");
    expect(leaf.notBefore.getTime()).toBe(T0 - HOUR); // minted when prepared, not when asked for
    ca.prepare(["api.github.com"]); // already there: kept
    expect((await ca.leafFor("api.github.com")).fingerprint).toBe(leaf.fingerprint);
  });

  it("caches a leaf per host, and mints a new one when the cached one nears expiry", async () => {
    let now = T0;
    const ca = await createSessionCa({ now: () => now });
    const first = await ca.leafFor("example.com");
    expect((await ca.leafFor("EXAMPLE.com")).fingerprint).toBe(first.fingerprint);
    expect((await ca.leafFor("other.example")).fingerprint).not.toBe(first.fingerprint);
    now = T0 + 23.5 * HOUR;
    const renewed = await ca.leafFor("example.com");
    expect(renewed.fingerprint).not.toBe(first.fingerprint);
    expect(renewed.notAfter.getTime()).toBe(now + 24 * HOUR);
  });

  it.each([
    ["an IP address with a port", "1.2.3.4:443"],
    ["a name with a space", "a b.example"],
    ["an empty name", ""],
  ])("refuses to certify %s", async (_name, host) => {
    const ca = await createSessionCa();
    await expect(ca.leafFor(host)).rejects.toThrow(/not a DNS name/);
  });

  it("accepts an existing CA (a host persisted its key pair and certificate) and issues under it", async () => {
    const original = await createSessionCa({ now: () => T0 });
    const loaded = await loadSessionCa({ keys: original.keys, certPem: original.certPem }, { now: () => T0 });
    expect(loaded.fingerprint).toBe(original.fingerprint);
    const leaf = new NodeX509((await loaded.leafFor("example.com")).der);
    expect(leaf.verify(new NodeX509(original.certPem).publicKey)).toBe(true);
  });

  it("refuses an existing CA whose key pair does not match its certificate", async () => {
    const one = await createSessionCa();
    const other = await createSessionCa();
    await expect(loadSessionCa({ keys: other.keys, certPem: one.certPem })).rejects.toThrow(/does not match/);
  });

  it("keeps at most maxLeaves leaves: the least recently used is dropped and minted again when asked for", async () => {
    const ca = await createSessionCa({ now: () => T0, maxLeaves: 3 });
    const a = await ca.leafFor("a.example");
    const b = await ca.leafFor("b.example");
    await ca.leafFor("c.example");
    expect((await ca.leafFor("a.example")).fingerprint).toBe(a.fingerprint); // a is now the most recent
    await ca.leafFor("d.example"); // drops b, the least recently used
    expect((await ca.leafFor("a.example")).fingerprint).toBe(a.fingerprint);
    expect((await ca.leafFor("b.example")).fingerprint).not.toBe(b.fingerprint);
  });

  it(`a wildcard rule's stream of new hosts keeps at most ${DEFAULT_MAX_LEAVES} leaves by default`, async () => {
    const ca = await createSessionCa({ now: () => T0 });
    const first = await ca.leafFor("h0.example");
    for (let i = 1; i <= DEFAULT_MAX_LEAVES; i++) await ca.leafFor(`h${i}.example`);
    const last = await ca.leafFor(`h${DEFAULT_MAX_LEAVES}.example`);
    expect((await ca.leafFor(`h${DEFAULT_MAX_LEAVES}.example`)).fingerprint).toBe(last.fingerprint);
    expect((await ca.leafFor("h0.example")).fingerprint).not.toBe(first.fingerprint); // 257 hosts: the first was dropped
  });

  it("refuses a nonsensical maxLeaves with a clear error", async () => {
    await expect(createSessionCa({ maxLeaves: 0 })).rejects.toThrow(/maxLeaves must be a positive integer/);
  });
});

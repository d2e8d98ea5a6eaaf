import { describe, expect, it } from "vitest";
import { parseClientHello } from "./client-hello";
import { ECDSA_SECP256R1_SHA256, ExtensionType } from "./constants";
import { TlsFailure } from "./failure";
import { checkClientHello } from "./handshake";
import { sha256 } from "./hkdf";
import { deriveEarlySecret, resumptionBinder } from "./key-schedule";
import { resumptionMode, selectResumption } from "./resumption";
import { buildClientHello, type ClientHelloSpec, preSharedKeyData, pskModesData } from "./testing/client-hello-builder";
import { TicketStore } from "./ticket-store";

// The server's choice between resuming and a full handshake (RFC 8446 §4.2.9, §4.2.11), on
// ClientHellos built here with binders computed as a client would.

const HOST = "example.com";
const PSK_KE = 0;
const PSK_DHE_KE = 1;
const BINDERS_TAIL = 2 + 1 + 32; // the binders list of one 32-byte binder

function storeWithTicket(host = HOST, now?: () => number) {
  const tickets = new TicketStore(now ? { now } : {});
  const identity = crypto.getRandomValues(new Uint8Array(32));
  const psk = crypto.getRandomValues(new Uint8Array(32));
  tickets.add(identity, { psk, host, alpn: null, certFingerprint: "ab".repeat(32), ageAdd: 7 });
  return { tickets, identity, psk };
}

/** A ClientHello offering `identity` with the binder its PSK gives (or a tampered one), as its last extension. */
async function helloOffering(
  identity: Uint8Array,
  psk: Uint8Array,
  options: { modes?: number[]; spec?: ClientHelloSpec; before?: { type: number; data: Uint8Array }[]; tamper?: boolean } = {},
) {
  const message = buildClientHello({
    ...options.spec,
    extra: [
      ...(options.before ?? []),
      { type: ExtensionType.pskKeyExchangeModes, data: pskModesData(options.modes ?? [PSK_DHE_KE]) },
      { type: ExtensionType.preSharedKey, data: preSharedKeyData([{ identity, age: 1000 }], [new Uint8Array(32)]) },
    ],
  });
  const truncated = message.subarray(0, message.length - BINDERS_TAIL);
  const binder = await resumptionBinder(await deriveEarlySecret(psk), await sha256(truncated));
  if (options.tamper) binder[0]! ^= 1;
  message.set(binder, message.length - 32);
  return { message, hello: parseClientHello(message.subarray(4)) };
}

describe("the server resumes only a PSK-DHE offer of a live ticket of this CONNECT host, once, with a binder that verifies", () => {
  it("a ticket of this host, with psk_dhe_ke and an x25519 share, resumes and is taken out of the store", async () => {
    const { tickets, identity, psk } = storeWithTicket();
    const { message, hello } = await helloOffering(identity, psk);
    const resumption = await selectResumption(hello, message, tickets, "EXAMPLE.com.");
    expect(resumption?.selectedIdentity).toBe(0);
    expect(resumption?.entry.certFingerprint).toBe("ab".repeat(32));
    expect(tickets.size).toBe(0);
    expect(await selectResumption(hello, message, tickets, HOST)).toBeNull(); // used once
  });

  it("the first identity the store holds is selected, and its index is the one echoed", async () => {
    const { tickets, identity, psk } = storeWithTicket();
    const unknown = crypto.getRandomValues(new Uint8Array(32));
    const message = buildClientHello({
      extra: [
        { type: ExtensionType.pskKeyExchangeModes, data: pskModesData([PSK_DHE_KE]) },
        {
          type: ExtensionType.preSharedKey,
          data: preSharedKeyData([{ identity: unknown }, { identity }], [new Uint8Array(32), new Uint8Array(32)]),
        },
      ],
    });
    const truncated = message.subarray(0, message.length - (2 + 2 * 33));
    message.set(await resumptionBinder(await deriveEarlySecret(psk), await sha256(truncated)), message.length - 32);
    const resumption = await selectResumption(parseClientHello(message.subarray(4)), message, tickets, HOST);
    expect(resumption?.selectedIdentity).toBe(1);
  });

  it("a binder that does not verify aborts with decrypt_error, and the ticket is spent", async () => {
    const { tickets, identity, psk } = storeWithTicket();
    const { message, hello } = await helloOffering(identity, psk, { tamper: true });
    await expect(selectResumption(hello, message, tickets, HOST)).rejects.toMatchObject({ alert: "decrypt_error" });
    expect(tickets.size).toBe(0);
  });

  it("without the guest link's rule, psk_ke alone (no fresh key exchange, so no forward secrecy) is not accepted: full handshake, ticket kept", async () => {
    const { tickets, identity, psk } = storeWithTicket();
    const { message, hello } = await helloOffering(identity, psk, { modes: [PSK_KE] });
    expect(await selectResumption(hello, message, tickets, HOST)).toBeNull();
    expect(tickets.size).toBe(1);
  });

  it("an offer of early_data is never resumed (no 0-RTT): full handshake", async () => {
    const { tickets, identity, psk } = storeWithTicket();
    const earlyData = { type: ExtensionType.earlyData, data: new Uint8Array(0) };
    const { message, hello } = await helloOffering(identity, psk, { before: [earlyData] });
    expect(await selectResumption(hello, message, tickets, HOST)).toBeNull();
    expect(tickets.size).toBe(1);
  });

  it("a P-256 share resumes too: any share for a group the server takes", async () => {
    const { tickets, identity, psk } = storeWithTicket();
    const spec = { groups: [0x17], keyShares: [{ group: 0x17, key: new Uint8Array(65).fill(4) }] };
    const { message, hello } = await helloOffering(identity, psk, { spec });
    expect((await selectResumption(hello, message, tickets, HOST))?.selectedIdentity).toBe(0);
  });

  it.each([
    ["only a secp384r1 share", [0x18, 0x1d, 0x17], [{ group: 0x18, key: new Uint8Array(97).fill(4) }]],
    ["no share at all", [0x1d, 0x17], []],
  ])("with %s (a HelloRetryRequest would be needed) the PSK is ignored, ticket kept: full handshake", async (_name, groups, keyShares) => {
    const { tickets, identity, psk } = storeWithTicket();
    const { message, hello } = await helloOffering(identity, psk, { spec: { groups, keyShares } });
    expect(await selectResumption(hello, message, tickets, HOST)).toBeNull();
    expect(tickets.size).toBe(1);
  });

  it("a ticket issued under another CONNECT host is not used there, and stays usable for its own", async () => {
    const { tickets, identity, psk } = storeWithTicket("other.example");
    const { message, hello } = await helloOffering(identity, psk);
    expect(await selectResumption(hello, message, tickets, HOST)).toBeNull();
    expect(await selectResumption(hello, message, tickets, "other.example")).not.toBeNull();
  });

  it("an expired ticket is refused and dropped", async () => {
    let now = 1_000_000;
    const { tickets, identity, psk } = storeWithTicket(HOST, () => now);
    const { message, hello } = await helloOffering(identity, psk);
    now += tickets.lifetimeSeconds * 1000;
    expect(await selectResumption(hello, message, tickets, HOST)).toBeNull();
    expect(tickets.size).toBe(0);
  });

  it("TLS 1.3 only: a ticket offered by a client without TLS 1.3 is refused protocol_version before it is looked at", async () => {
    const { identity, psk } = storeWithTicket();
    const { hello } = await helloOffering(identity, psk, { spec: { versions: [0x0303] } });
    expect(() => checkClientHello(hello, HOST, ECDSA_SECP256R1_SHA256)).toThrow(expect.objectContaining({ alert: "protocol_version" }));
  });

  it("pre_shared_key without psk_key_exchange_modes is refused as missing_extension", () => {
    const body = buildClientHello({
      extra: [{ type: ExtensionType.preSharedKey, data: preSharedKeyData([{ identity: Uint8Array.of(1) }], [new Uint8Array(32)]) }],
    }).subarray(4);
    expect(() => checkClientHello(parseClientHello(body), HOST, ECDSA_SECP256R1_SHA256)).toThrow(
      expect.objectContaining({ alert: "missing_extension" }),
    );
  });
});

describe("on the guest link (decision 0024) psk_ke is accepted too, but psk_dhe_ke wins whenever the client already sent a usable share", () => {
  const guestLink = { withoutKeyExchange: true };
  const x25519 = [{ group: 0x1d, key: new Uint8Array(32).fill(5) }];
  const p384 = [{ group: 0x18, key: new Uint8Array(97).fill(4) }];
  const modeOf = (modes: number[], keyShares: ClientHelloSpec["keyShares"], rules = guestLink) =>
    resumptionMode(
      parseClientHello(
        buildClientHello({ keyShares, extra: [{ type: ExtensionType.pskKeyExchangeModes, data: pskModesData(modes) }] }).subarray(4),
      ),
      rules,
    );

  it.each([
    ["psk_ke only, no key_share", [PSK_KE], null, "psk_ke"],
    ["psk_ke only, an empty client_shares", [PSK_KE], [], "psk_ke"],
    ["psk_ke only, though an x25519 share was sent (the client asked for no (EC)DHE)", [PSK_KE], x25519, "psk_ke"],
    ["both modes with an x25519 share", [PSK_KE, PSK_DHE_KE], x25519, "psk_dhe_ke"],
    ["both modes, no share", [PSK_DHE_KE, PSK_KE], [], "psk_ke"],
    ["both modes, only a share the server does not take", [PSK_KE, PSK_DHE_KE], p384, "psk_ke"],
    ["psk_dhe_ke only, no share", [PSK_DHE_KE], [], null],
  ] as const)("%s: %s", (_name, modes, keyShares, expected) => {
    expect(modeOf([...modes], keyShares === null ? null : [...keyShares])).toBe(expected);
  });

  it("without the rule (a real socket), psk_ke is never chosen, whatever the client offers", () => {
    const socket = { withoutKeyExchange: false };
    expect(modeOf([PSK_KE], null, socket)).toBeNull();
    expect(modeOf([PSK_KE, PSK_DHE_KE], [], socket)).toBeNull();
    expect(modeOf([PSK_KE, PSK_DHE_KE], x25519, socket)).toBe("psk_dhe_ke");
  });

  it("a psk_ke offer of a live ticket resumes once, and takes the ticket out of the store", async () => {
    const { tickets, identity, psk } = storeWithTicket();
    const { message, hello } = await helloOffering(identity, psk, { modes: [PSK_KE], spec: { keyShares: null } });
    expect(await selectResumption(hello, message, tickets, HOST, guestLink)).toMatchObject({ selectedIdentity: 0, mode: "psk_ke" });
    expect(tickets.size).toBe(0);
    expect(await selectResumption(hello, message, tickets, HOST, guestLink)).toBeNull();
  });

  it("a ClientHello without key_share is accepted for checking only when it offers a PSK for psk_ke", async () => {
    const { identity, psk } = storeWithTicket();
    const pskKe = await helloOffering(identity, psk, { modes: [PSK_KE], spec: { keyShares: null } });
    expect(checkClientHello(pskKe.hello, HOST, ECDSA_SECP256R1_SHA256)).toBe(HOST);
    const pskDheKe = await helloOffering(identity, psk, { modes: [PSK_DHE_KE], spec: { keyShares: null } });
    expect(() => checkClientHello(pskDheKe.hello, HOST, ECDSA_SECP256R1_SHA256)).toThrow(
      expect.objectContaining({ alert: "missing_extension" }),
    );
  });
});

describe("the ticket store is bounded, in memory, and single-use", () => {
  it("past its capacity the oldest ticket is dropped", () => {
    const tickets = new TicketStore({ capacity: 2 });
    const ids = [1, 2, 3].map((n) => Uint8Array.of(n));
    for (const id of ids) tickets.add(id, { psk: new Uint8Array(32), host: HOST, alpn: null, certFingerprint: "", ageAdd: 0 });
    expect(tickets.size).toBe(2);
    expect(tickets.take(ids[0]!, HOST)).toBeNull();
    expect(tickets.take(ids[2]!, HOST)).not.toBeNull();
  });

  it("ticket nonces are never repeated", () => {
    const tickets = new TicketStore();
    expect(new Set([tickets.nextNonce(), tickets.nextNonce(), tickets.nextNonce()]).size).toBe(3);
  });
});

describe("a malformed pre_shared_key is a coded refusal", () => {
  const parse = (data: Uint8Array) =>
    parseClientHello(
      buildClientHello({
        extra: [
          { type: ExtensionType.pskKeyExchangeModes, data: pskModesData([PSK_DHE_KE]) },
          { type: ExtensionType.preSharedKey, data },
        ],
      }).subarray(4),
    );
  const refusal = (data: Uint8Array): TlsFailure | null => {
    try {
      parse(data);
      return null;
    } catch (error) {
      return error instanceof TlsFailure ? error : null;
    }
  };

  it.each([
    ["no identities", preSharedKeyData([], [])],
    ["an empty identity", preSharedKeyData([{ identity: new Uint8Array(0) }], [new Uint8Array(32)])],
    ["a binder shorter than 32 bytes", preSharedKeyData([{ identity: Uint8Array.of(1) }], [new Uint8Array(31)])],
  ])("%s: decode_error", (_name, data) => {
    expect(refusal(data)?.alert).toBe("decode_error");
  });

  it("identities and binders in different numbers: illegal_parameter", () => {
    const data = preSharedKeyData([{ identity: Uint8Array.of(1) }, { identity: Uint8Array.of(2) }], [new Uint8Array(32)]);
    expect(refusal(data)?.alert).toBe("illegal_parameter");
  });

  it("an empty psk_key_exchange_modes: decode_error", () => {
    const body = buildClientHello({ extra: [{ type: ExtensionType.pskKeyExchangeModes, data: Uint8Array.of(0) }] }).subarray(4);
    expect(() => parseClientHello(body)).toThrow(expect.objectContaining({ alert: "decode_error" }));
  });

  it("every truncation of a valid pre_shared_key is a decode_error", () => {
    const data = preSharedKeyData([{ identity: new Uint8Array(32).fill(3), age: 5 }], [new Uint8Array(32)]);
    expect(parse(data).preSharedKey?.bindersLength).toBe(BINDERS_TAIL);
    for (let length = 0; length < data.length; length++) expect(refusal(data.subarray(0, length))?.alert).toBe("decode_error");
  });
});

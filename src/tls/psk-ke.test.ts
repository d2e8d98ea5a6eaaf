import { constants } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventLog, type EventLog } from "../log";
import { fakeTimers } from "../platform/testing/fake-timers";
import { createSessionCa, createTlsTerminator, type TlsTerminator } from "./index";
import { CONNECT } from "./testing/harness";
import { memoryPipe } from "./testing/memory-pipe";
import { nodeClient } from "./testing/node-client";
import { echo, startTlsTestServer, type TestTlsServer } from "./testing/tls-server";
import { type ClientTicket, runTls13Client, type Tls13ClientOptions } from "./testing/tls13-client";

// psk_ke resumption (RFC 8446 §4.2.9) on the guest's in-process link
// (docs/decisions/0024-psk-ke-on-the-guest-link.md), with a client that derives every key
// itself: a session it completes, reading the server's encrypted echo, proves both sides
// derived the same traffic keys.

const ca = await createSessionCa();
const X25519 = 0x1d;
const DECRYPT_ERROR = 51;

function terminatorOf(resumeWithoutKeyExchange: boolean, now?: () => number): { terminator: TlsTerminator; log: EventLog } {
  const log = createEventLog();
  const terminator = createTlsTerminator({
    ca,
    log,
    timers: fakeTimers(),
    resumeWithoutKeyExchange,
    ...(now ? { tickets: { now } } : {}),
  });
  return { terminator, log };
}

/** One session through `terminator` to an echo server, as CONNECT example.com. */
function connect(terminator: TlsTerminator, options: Partial<Tls13ClientOptions> & { send: string }) {
  const pipe = memoryPipe();
  void terminator.terminate(pipe.server, CONNECT).then((plain) => plain?.readable.pipeTo(plain.writable).catch(() => undefined));
  return runTls13Client(pipe.client, { serverName: CONNECT.host, firstKeyShare: "x25519", ...options });
}

/** A ticket from a full handshake on `terminator`. */
async function ticketFrom(terminator: TlsTerminator): Promise<ClientTicket> {
  const full = await connect(terminator, { send: "full" });
  expect(full).toMatchObject({ certificate: true, reply: "full" });
  return full.ticket!;
}

const lastEstablished = (log: EventLog) => log.ofKind("tls.session").findLast((e) => e.phase === "established");

describe("on the guest link, a ticket offered for psk_ke resumes without an (EC)DHE exchange", () => {
  it.each([
    ["no key_share extension", "absent"],
    ["an empty client_shares (what wolfSSL_NoKeyShares sends)", "empty"],
  ] as const)(
    "psk_ke only with %s: resumed, no key share, no certificate, and the client reads the server's encrypted reply",
    async (_name, firstKeyShare) => {
      const { terminator, log } = terminatorOf(true);
      const ticket = await ticketFrom(terminator);
      const resumed = await connect(terminator, { firstKeyShare, resume: { ticket, modes: ["psk_ke"] }, send: "over psk_ke" });
      expect(resumed.helloRetry).toBe(false);
      expect(resumed.serverHello).toMatchObject({ selectedIdentity: 0, group: null, keyExchange: null });
      expect(resumed.certificate).toBe(false);
      expect(resumed.reply).toBe("over psk_ke");
      expect(resumed.ticket).not.toBeNull(); // a resumed session gets a fresh ticket too
      expect(lastEstablished(log)).toMatchObject({ resumed: true, pskMode: "psk_ke", group: null, helloRetry: false });
    },
  );

  it("a client offering both modes with an X25519 share resumes with psk_dhe_ke: forward secrecy, at no cost to it", async () => {
    const { terminator, log } = terminatorOf(true);
    const ticket = await ticketFrom(terminator);
    const resumed = await connect(terminator, { resume: { ticket, modes: ["psk_ke", "psk_dhe_ke"] }, send: "both" });
    expect(resumed.serverHello).toMatchObject({ selectedIdentity: 0, group: X25519 });
    expect(resumed.serverHello?.keyExchange).toHaveLength(32);
    expect(resumed).toMatchObject({ helloRetry: false, certificate: false, reply: "both" });
    expect(lastEstablished(log)).toMatchObject({ resumed: true, pskMode: "psk_dhe_ke", group: "x25519" });
  });

  it("a client offering both modes but no key share resumes with psk_ke rather than through a HelloRetryRequest", async () => {
    const { terminator, log } = terminatorOf(true);
    const ticket = await ticketFrom(terminator);
    const resumed = await connect(terminator, {
      firstKeyShare: "empty",
      resume: { ticket, modes: ["psk_dhe_ke", "psk_ke"] },
      send: "both, no share",
    });
    expect(resumed).toMatchObject({ helloRetry: false, certificate: false, reply: "both, no share" });
    expect(lastEstablished(log)).toMatchObject({ resumed: true, pskMode: "psk_ke" });
  });

  it("a ticket used once with psk_ke cannot be used again: the second offer gets a HelloRetryRequest and a full handshake", async () => {
    const { terminator, log } = terminatorOf(true);
    const ticket = await ticketFrom(terminator);
    const once = await connect(terminator, { firstKeyShare: "absent", resume: { ticket, modes: ["psk_ke"] }, send: "once" });
    expect(once.serverHello?.selectedIdentity).toBe(0);
    const again = await connect(terminator, { firstKeyShare: "absent", resume: { ticket, modes: ["psk_ke"] }, send: "again" });
    expect(again).toMatchObject({ helloRetry: true, certificate: true, reply: "again" });
    expect(again.serverHello?.selectedIdentity).toBeNull();
    expect(lastEstablished(log)).toMatchObject({ resumed: false, helloRetry: true, group: "x25519" });
    expect(lastEstablished(log)?.pskMode).toBeUndefined();
  });

  it("a known ticket with a binder that does not verify ends with decrypt_error, as with psk_dhe_ke", async () => {
    const { terminator, log } = terminatorOf(true);
    const ticket = await ticketFrom(terminator);
    const tampered = await connect(terminator, {
      firstKeyShare: "absent",
      resume: { ticket, modes: ["psk_ke"], tamperBinder: true },
      send: "never",
    });
    expect(tampered).toMatchObject({ alert: DECRYPT_ERROR, serverHello: null, reply: "" });
    expect(log.ofKind("tls.verdict").at(-1)).toMatchObject({ code: "tls-error", alert: "decrypt_error(51)" });
  });
});

describe("a psk_ke offer the server does not resume gets a full handshake, through a HelloRetryRequest if it sent no share, never an error", () => {
  it("without the option (a real socket, the CLI proxy), psk_ke only with no key share: HelloRetryRequest, full handshake, ticket kept", async () => {
    const { terminator, log } = terminatorOf(false);
    const ticket = await ticketFrom(terminator);
    const full = await connect(terminator, { firstKeyShare: "absent", resume: { ticket, modes: ["psk_ke"] }, send: "no psk_ke here" });
    expect(full).toMatchObject({ helloRetry: true, certificate: true, reply: "no psk_ke here" });
    expect(full.serverHello).toMatchObject({ selectedIdentity: null, group: X25519 });
    expect(lastEstablished(log)).toMatchObject({ resumed: false, helloRetry: true });
    // Not resumable here, so not spent: the same ticket still resumes with psk_dhe_ke.
    const dhe = await connect(terminator, { resume: { ticket, modes: ["psk_dhe_ke"] }, send: "dhe" });
    expect(dhe).toMatchObject({ certificate: false, reply: "dhe" });
    expect(lastEstablished(log)).toMatchObject({ resumed: true, pskMode: "psk_dhe_ke", group: "x25519" });
  });

  it("without the option, psk_ke and psk_dhe_ke with an X25519 share resume with psk_dhe_ke as before", async () => {
    const { terminator, log } = terminatorOf(false);
    const ticket = await ticketFrom(terminator);
    const resumed = await connect(terminator, { resume: { ticket, modes: ["psk_ke", "psk_dhe_ke"] }, send: "as before" });
    expect(resumed).toMatchObject({ helloRetry: false, certificate: false, reply: "as before" });
    expect(lastEstablished(log)).toMatchObject({ resumed: true, pskMode: "psk_dhe_ke" });
  });

  it("an unknown ticket, psk_ke only, no key share: HelloRetryRequest, then a full handshake", async () => {
    const { terminator, log } = terminatorOf(true);
    const unknown = { identity: crypto.getRandomValues(new Uint8Array(32)), psk: crypto.getRandomValues(new Uint8Array(32)) };
    const full = await connect(terminator, { firstKeyShare: "absent", resume: { ticket: unknown, modes: ["psk_ke"] }, send: "unknown" });
    expect(full).toMatchObject({ helloRetry: true, certificate: true, reply: "unknown" });
    expect(full.serverHello?.selectedIdentity).toBeNull();
    expect(lastEstablished(log)).toMatchObject({ resumed: false, helloRetry: true, group: "x25519" });
  });

  it("an expired ticket, psk_ke only, no key share: HelloRetryRequest, then a full handshake", async () => {
    let now = 1_000_000;
    const { terminator } = terminatorOf(true, () => now);
    const ticket = await ticketFrom(terminator);
    now += 3600 * 1000;
    const full = await connect(terminator, { firstKeyShare: "absent", resume: { ticket, modes: ["psk_ke"] }, send: "late" });
    expect(full).toMatchObject({ helloRetry: true, certificate: true, reply: "late" });
    expect(full.serverHello?.selectedIdentity).toBeNull();
  });
});

describe("an independent client (node:tls, OpenSSL) that allows psk_ke resumes with it on the guest link", () => {
  const sessions = createEventLog();
  let server: TestTlsServer;
  beforeAll(async () => {
    server = await startTlsTestServer({
      ca,
      log: sessions,
      connectHost: CONNECT.host,
      serve: echo,
      terminator: { resumeWithoutKeyExchange: true },
    });
  });
  afterAll(() => server.close());

  /** OpenSSL offers psk_ke besides psk_dhe_ke only with SSL_OP_ALLOW_NO_DHE_KEX; an X448-first list makes its only share one the server does not take. */
  const options = { ca: ca.certPem, servername: CONNECT.host, ecdhCurve: "X448:X25519", secureOptions: constants.SSL_OP_ALLOW_NO_DHE_KEX };

  it("offered both modes with only an X448 share, the server resumes with psk_ke instead of a HelloRetryRequest, and data flows", async () => {
    const full = await nodeClient(server.port, options, Buffer.from("full"));
    expect(full.error).toBeNull();
    expect(full.received.toString()).toBe("full");
    expect(full.ticket).not.toBeNull();
    const resumed = await nodeClient(server.port, { ...options, session: full.ticket! }, Buffer.from("resumed by OpenSSL"));
    expect(resumed.error).toBeNull();
    expect(resumed.reused).toBe(true);
    expect(resumed.received.toString()).toBe("resumed by OpenSSL");
    expect(sessions.ofKind("tls.session").findLast((e) => e.phase === "established")).toMatchObject({
      resumed: true,
      pskMode: "psk_ke",
      group: null,
      helloRetry: false,
    });
  });
});

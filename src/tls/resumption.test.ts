import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventLog, type EventLog } from "../log";
import { type ClientHello, parseClientHello } from "./client-hello";
import { createSessionCa, type SessionCa } from "./index";
import { sClientArgs, sClientEcho } from "./testing/openssl-client";
import { startTamperingRelay, type TamperingRelay } from "./testing/tampering-relay";
import { echo, startTlsTestServer, type TestTlsServer } from "./testing/tls-server";
import { DEFAULT_TICKET_LIFETIME_SECONDS } from "./ticket-store";

// Session resumption (RFC 8446 §2.2, psk_dhe_ke) with node:tls as the client: one terminator,
// so one ticket store, serving CONNECTs to two hosts; a controlled clock for expiry.

const HOST = "example.com";
const OTHER = "other.example";
let ca: SessionCa;
let log: EventLog;
let server: TestTlsServer;
let connectHost = HOST;
let clock = Date.now();
/** The ClientHello of each connection, in order, as the server received it. */
const hellos: ClientHello[] = [];

function recordHello(socket: Socket): void {
  socket.once("data", (chunk: Buffer) => {
    // Node sends its ClientHello as one record in one segment: record header (5), handshake header (4).
    hellos.push(parseClientHello(new Uint8Array(chunk.subarray(9, 9 + chunk.readUIntBE(6, 3)))));
  });
}

beforeAll(async () => {
  ca = await createSessionCa();
  log = createEventLog();
  server = await startTlsTestServer({
    ca,
    log,
    connectHost: () => connectHost,
    onSocket: recordHello,
    serve: echo,
    terminator: { tickets: { now: () => clock } },
  });
});
afterAll(() => server.close());

interface Run {
  established: boolean;
  reused: boolean;
  /** The last session ticket the client received (node:tls 'session'), if any. */
  ticket: Buffer | null;
  received: string;
  error: (Error & { code?: string }) | null;
}

function connect(options: { servername?: string; session?: Buffer; port?: number; ecdhCurve?: string }, send = "ping"): Promise<Run> {
  return new Promise((resolve) => {
    const run: Run = { established: false, reused: false, ticket: null, received: "", error: null };
    const socket = tls.connect({
      port: options.port ?? server.port,
      host: "127.0.0.1",
      ca: ca.certPem,
      servername: options.servername ?? HOST,
      ALPNProtocols: ["http/1.1"],
      ...(options.session ? { session: options.session } : {}),
      ...(options.ecdhCurve ? { ecdhCurve: options.ecdhCurve } : {}),
    });
    socket.on("secureConnect", () => {
      run.established = true;
      run.reused = socket.isSessionReused();
      socket.write(send);
    });
    socket.on("session", (ticket: Buffer) => {
      run.ticket = ticket;
    });
    socket.on("data", (chunk: Buffer) => {
      run.received += chunk.toString();
      if (run.received === send) socket.end();
    });
    socket.on("error", (error) => {
      run.error = error;
    });
    socket.on("close", () => resolve(run));
  });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const lastEstablished = () => log.ofKind("tls.session").findLast((e) => e.phase === "established");
const lastHello = () => hellos.at(-1);

describe("a session ticket resumes a session once, inside a CONNECT to the host it was issued under", () => {
  it("a full handshake sends a ticket; the ticket resumes with psk_dhe_ke, carries data both ways, and is logged as resumed", async () => {
    const first = await connect({}, "first");
    expect(first.error).toBeNull();
    expect(first.reused).toBe(false);
    expect(first.ticket).not.toBeNull();
    await settle();
    const full = lastEstablished();
    expect(full).toMatchObject({ resumed: false, sni: HOST });

    const second = await connect({ session: first.ticket! }, "resumed data");
    expect(second.error).toBeNull();
    expect(second.reused).toBe(true);
    expect(second.received).toBe("resumed data");
    expect(second.ticket).not.toBeNull(); // a resumed session gets a fresh ticket
    await settle();
    expect(lastHello()?.pskModes).toContain(1);
    // The client verified the certificate when the ticket was issued: that is the one logged.
    expect(lastEstablished()).toMatchObject({ resumed: true, sni: HOST, alpn: "http/1.1", certFingerprint: full?.certFingerprint });
  });

  it("a ticket already used gives a full handshake, though the client offers it", async () => {
    const first = await connect({});
    const resumed = await connect({ session: first.ticket! });
    expect(resumed.reused).toBe(true);
    const again = await connect({ session: first.ticket! }, "again");
    expect(lastHello()?.preSharedKey?.identities).toHaveLength(1);
    expect(again.error).toBeNull();
    expect(again.reused).toBe(false);
    expect(again.received).toBe("again");
    await settle();
    expect(lastEstablished()).toMatchObject({ resumed: false });
  });

  it("a ticket issued under one CONNECT host gives a full handshake inside a CONNECT to another, and stays usable for its own", async () => {
    const first = await connect({});
    connectHost = OTHER;
    try {
      const elsewhere = await connect({ servername: OTHER, session: first.ticket! }, "elsewhere");
      expect(lastHello()?.preSharedKey).not.toBeNull();
      expect(elsewhere.error).toBeNull();
      expect(elsewhere.reused).toBe(false);
      expect(elsewhere.received).toBe("elsewhere");
      await settle();
      expect(lastEstablished()).toMatchObject({ resumed: false, sni: OTHER, connectHost: OTHER });
    } finally {
      connectHost = HOST;
    }
    expect((await connect({ session: first.ticket! })).reused).toBe(true);
  });

  it("SNI must name the CONNECT host before any ticket is looked at: a resumption naming another host is refused sni-mismatch", async () => {
    const first = await connect({});
    const wrong = await connect({ servername: OTHER, session: first.ticket! });
    expect(lastHello()?.preSharedKey).not.toBeNull();
    expect(wrong.established).toBe(false);
    expect(wrong.error?.code).toBe("ERR_SSL_TLSV1_UNRECOGNIZED_NAME");
    await settle();
    expect(log.ofKind("tls.verdict").at(-1)).toMatchObject({ code: "sni-mismatch", alert: "unrecognized_name(112)" });
    // The ticket was not consumed by the refused attempt.
    expect((await connect({ session: first.ticket! })).reused).toBe(true);
  });

  it("an expired ticket gives a full handshake", async () => {
    const first = await connect({});
    clock += DEFAULT_TICKET_LIFETIME_SECONDS * 1000;
    try {
      const late = await connect({ session: first.ticket! }, "late");
      expect(lastHello()?.preSharedKey).not.toBeNull();
      expect(late.error).toBeNull();
      expect(late.reused).toBe(false);
      expect(late.received).toBe("late");
    } finally {
      clock = Date.now();
    }
  });
});

describe("resumption works over either group the server takes, and never through a HelloRetryRequest", () => {
  it("a P-256-only client resumes with its ticket, with a fresh secp256r1 exchange", async () => {
    const first = await connect({ ecdhCurve: "prime256v1" }, "full over P-256");
    expect(first.error).toBeNull();
    await settle();
    expect(lastEstablished()).toMatchObject({ resumed: false, group: "secp256r1" });
    const second = await connect({ ecdhCurve: "prime256v1", session: first.ticket! }, "resumed over P-256");
    expect(second.error).toBeNull();
    expect(second.reused).toBe(true);
    expect(second.received).toBe("resumed over P-256");
    await settle();
    expect(lastHello()?.keyShares?.map((share) => share.group)).toEqual([0x0017]);
    expect(lastEstablished()).toMatchObject({ resumed: true, group: "secp256r1", helloRetry: false });
  });

  it("a client whose first share is for a group the server does not take (X448) gets a HelloRetryRequest and a full handshake, ticket kept", async () => {
    const first = await connect({});
    const retried = await connect({ ecdhCurve: "X448:X25519", session: first.ticket! }, "after a retry");
    expect(lastHello()?.preSharedKey).not.toBeNull();
    expect(retried.error).toBeNull();
    expect(retried.reused).toBe(false);
    expect(retried.received).toBe("after a retry");
    await settle();
    expect(lastEstablished()).toMatchObject({ resumed: false, helloRetry: true, group: "x25519" });
    // Not looked at, so not spent: it still resumes a client that sends a share the server takes.
    expect((await connect({ session: first.ticket! })).reused).toBe(true);
  });
});

describe("a tampered binder aborts the handshake with decrypt_error", () => {
  let middle: TamperingRelay;
  let tamper = false;
  beforeAll(async () => {
    middle = await startTamperingRelay(server.port, (chunk, index) => {
      // The ClientHello's last byte is in the last binder (pre_shared_key is the last extension).
      if (index === 0 && tamper) chunk[chunk.length - 1]! ^= 0x01;
    });
  });
  afterAll(() => middle.close());

  it("a known ticket with a binder that does not verify: decrypt_error, and the ticket is spent", async () => {
    const { port } = middle;
    const first = await connect({});
    tamper = true;
    const tampered = await connect({ port, session: first.ticket! });
    tamper = false;
    expect(tampered.established).toBe(false);
    expect(tampered.error?.code).toBe("ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR");
    await settle();
    expect(log.ofKind("tls.verdict").at(-1)).toMatchObject({ code: "tls-error", alert: "decrypt_error(51)" });
    expect((await connect({ session: first.ticket! })).reused).toBe(false);
  });
});

/** `openssl s_client` with its session saved to or read from `sessionFile`; resolves to all it printed. */
const sClient = (port: number, caFile: string, sessionFile: string, mode: "-sess_out" | "-sess_in", extra: string[]): Promise<string> =>
  sClientEcho([...sClientArgs(port, HOST, caFile), mode, sessionFile, ...extra], "over s_client");

describe("the system's openssl s_client resumes with a saved session", () => {
  it.each([
    ["its default groups", [], "x25519"],
    ["-groups P-256", ["-groups", "P-256"], "secp256r1"],
  ])("with %s, the session saved by a full handshake is reused by the next s_client", async (_name, extra, group) => {
    const dir = mkdtempSync(join(tmpdir(), "tls-resume-"));
    try {
      const caFile = join(dir, "ca.pem");
      writeFileSync(caFile, ca.certPem);
      const sessionFile = join(dir, "session.pem");
      const full = await sClient(server.port, caFile, sessionFile, "-sess_out", extra);
      expect(full).toContain("Verify return code: 0 (ok)");
      expect(full).toContain("New, TLSv1.3");
      const resumed = await sClient(server.port, caFile, sessionFile, "-sess_in", extra);
      expect(resumed).toContain("Reused, TLSv1.3");
      expect(resumed).toContain("over s_client"); // echoed
      await settle();
      expect(lastEstablished()).toMatchObject({ resumed: true, sni: HOST, group });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

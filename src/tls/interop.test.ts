import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ByteStream } from "../bytes";
import { createEventLog, type EventLog, type EventOf } from "../log";
import { createSessionCa, type SessionCa } from "./index";
import { nodeClient as connectNode } from "./testing/node-client";
import { sClientArgs, sClientEcho } from "./testing/openssl-client";
import { startTamperingRelay } from "./testing/tampering-relay";
import { echo, startTlsTestServer, type TestTlsServer } from "./testing/tls-server";

// Real clients against our WebCrypto TLS server on 127.0.0.1: node:tls (Node's OpenSSL) and
// the system's `openssl s_client`, both verifying the chain to the session CA.

const HOST = "example.com";
let ca: SessionCa;
let log: EventLog;
let server: TestTlsServer;
let dir: string;
let caFile: string;

beforeAll(async () => {
  ca = await createSessionCa();
  log = createEventLog();
  server = await startTlsTestServer({ ca, log, connectHost: HOST, serve: echo });
  dir = mkdtempSync(join(tmpdir(), "tls-test-"));
  caFile = join(dir, "ca.pem");
  writeFileSync(caFile, ca.certPem);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** node:tls trusting this file's CA and naming HOST unless `options` says otherwise. */
const nodeClient = (port: number, options: Omit<tls.ConnectionOptions, "ca"> & { ca?: string }, send: Buffer) =>
  connectNode(port, { ca: ca.certPem, servername: HOST, ...options }, send);

const sessionEvents = (id: string) => log.ofKind("tls.session").filter((e) => e.id === id);
const lastSessionId = () => log.ofKind("tls.session").at(-1)?.id ?? "";
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("node:tls completes a verified TLS 1.3 handshake with our server and exchanges data both ways", () => {
  it("verifies the chain to the session CA, negotiates TLS_AES_128_GCM_SHA256 over x25519 and http/1.1, and echoes", async () => {
    const run = await nodeClient(server.port, {}, Buffer.from("hello through the tunnel"));
    expect(run.error).toBeNull();
    expect(run.session).toMatchObject({
      authorized: true,
      protocol: "TLSv1.3",
      cipher: "TLS_AES_128_GCM_SHA256",
      alpn: "http/1.1",
      keyExchange: "X25519",
    });
    expect(run.received.toString()).toBe("hello through the tunnel");
    await settle();
    const events = sessionEvents(lastSessionId());
    expect(events.map((e) => e.phase)).toEqual(["handshake", "established", "closed"]);
    expect(events[1]).toMatchObject({ sni: HOST, cipher: "TLS_AES_128_GCM_SHA256", group: "x25519", alpn: "http/1.1", helloRetry: false });
    expect(events[1]?.certFingerprint).toBe(run.session?.peerFingerprint);
  });

  it.each([
    ["ecdsa-p256", "ecdsa-p256", "ecdsa_secp256r1_sha256"],
    ["rsa-2048", "rsa-2048", "rsa_pss_rsae_sha256"],
    ["ed25519", "ed25519", "ed25519"],
    ["rsa-2048", "ecdsa-p256", "ecdsa_secp256r1_sha256"],
  ] as const)("a %s CA with %s leaves: the chain verifies and CertificateVerify is %s", async (caKey, leafKey, scheme) => {
    const other = await createSessionCa({ caKey, leafKey });
    const otherLog = createEventLog();
    const otherServer = await startTlsTestServer({ ca: other, log: otherLog, connectHost: HOST, serve: echo });
    try {
      const run = await nodeClient(otherServer.port, { ca: other.certPem }, Buffer.from(`over ${scheme}`));
      expect(run.error).toBeNull();
      expect(run.session).toMatchObject({ authorized: true, protocol: "TLSv1.3" });
      expect(run.received.toString()).toBe(`over ${scheme}`);
      expect(other.leafScheme).toBe({ ecdsa_secp256r1_sha256: 0x0403, rsa_pss_rsae_sha256: 0x0804, ed25519: 0x0807 }[scheme]);
    } finally {
      await otherServer.close();
    }
  });

  it("answers no ALPN to a client offering only h2 (never h2)", async () => {
    const run = await nodeClient(server.port, { ALPNProtocols: ["h2"] }, Buffer.from("x"));
    expect(run.error).toBeNull();
    expect(run.session?.alpn).toBe(false);
  });

  it("refuses a client naming another host with alert 112 and an sni-mismatch verdict (verdict table, row 5)", async () => {
    const run = await nodeClient(server.port, { servername: "other.example" }, Buffer.from("x"));
    expect(run.session).toBeNull();
    expect(run.error?.code).toBe("ERR_SSL_TLSV1_UNRECOGNIZED_NAME");
    await settle();
    expect(log.ofKind("tls.verdict").at(-1)).toMatchObject({
      code: "sni-mismatch",
      alert: "unrecognized_name(112)",
      by: "design",
      allowed: false,
    });
  });

  it("counts the requests the proxy logged for this TLS session (proxy.decision.tlsSession) in the closed event", async () => {
    const counting = await startTlsTestServer({
      ca,
      log,
      connectHost: HOST,
      serve: async (plain, connect) => {
        for (const id of ["r1", "r2"])
          log.append({
            kind: "proxy.decision",
            id,
            mode: "tunnel",
            method: "GET",
            target: `https://${HOST}/`,
            status: 200,
            bytes: 0,
            durationMs: 0,
            tlsSession: connect.id,
            allowed: true,
            code: "served",
            reason: "test",
            by: "proxy",
          });
        await echo(plain);
      },
    });
    const run = await nodeClient(counting.port, {}, Buffer.from("two requests"));
    await counting.close();
    await settle();
    expect(run.error).toBeNull();
    expect(log.ofKind("tls.session").at(-1)).toMatchObject({ phase: "closed", requests: 2 });
  });

  it("moves 1 MB each way intact (SHA-256 of both directions)", async () => {
    const fromServer = randomBytes(1 << 20);
    let serverGotHash = "";
    let serverDone: () => void = () => undefined;
    const served = new Promise<void>((resolve) => {
      serverDone = resolve;
    });
    const bulk = await startTlsTestServer({
      ca,
      log,
      connectHost: HOST,
      serve: async (plain: ByteStream) => {
        const hash = createHash("sha256");
        const reading = (async () => {
          for await (const chunk of plain.readable as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
          serverGotHash = hash.digest("hex");
        })();
        const writer = plain.writable.getWriter();
        for (let at = 0; at < fromServer.length; at += 50_000) await writer.write(fromServer.subarray(at, at + 50_000));
        await writer.close();
        await reading;
        serverDone();
      },
    });
    const fromClient = randomBytes(1 << 20);
    const run = await nodeClient(bulk.port, {}, fromClient);
    await served;
    await bulk.close();
    await settle();
    expect(run.error).toBeNull();
    expect(run.received.length).toBe(fromServer.length);
    expect(createHash("sha256").update(run.received).digest("hex")).toBe(createHash("sha256").update(fromServer).digest("hex"));
    expect(serverGotHash).toBe(createHash("sha256").update(fromClient).digest("hex"));
  });

  it("a 1-byte write then a 40 KiB write from our side reach node:tls intact and in order, then close_notify", async () => {
    const big = randomBytes(40 * 1024);
    const writes = await startTlsTestServer({
      ca,
      log,
      connectHost: HOST,
      serve: async (plain) => {
        const draining = plain.readable.pipeTo(new WritableStream());
        const writer = plain.writable.getWriter();
        await writer.write(Uint8Array.of(0x2a));
        await writer.write(big);
        await writer.close();
        await draining;
      },
    });
    const run = await nodeClient(writes.port, {}, Buffer.alloc(0));
    await writes.close();
    expect(run.error).toBeNull();
    expect(run.received.toString("hex")).toBe(Buffer.concat([Buffer.of(0x2a), big]).toString("hex"));
  });

  it("a record tampered with after the handshake is refused with bad_record_mac, never passed on", async () => {
    let tamper = false;
    const middle = await startTamperingRelay(server.port, (chunk) => {
      if (tamper) chunk[chunk.length - 1]! ^= 0x01; // the last byte of a record is in its GCM tag
    });
    const { port } = middle;
    const outcome = await new Promise<{ error: (Error & { code?: string }) | null; data: string }>((resolve) => {
      let data = "";
      let error: (Error & { code?: string }) | null = null;
      const socket = tls.connect({ port, host: "127.0.0.1", ca: ca.certPem, servername: HOST }, () => {
        tamper = true;
        socket.write("tampered");
      });
      socket.on("data", (d: Buffer) => {
        data += d.toString();
      });
      socket.on("error", (e) => {
        error = e;
      });
      socket.on("close", () => resolve({ error, data }));
    });
    await middle.close();
    await settle();
    expect(outcome.data).toBe("");
    expect(outcome.error?.code).toBe("ERR_SSL_SSLV3_ALERT_BAD_RECORD_MAC");
    expect(log.ofKind("tls.verdict").at(-1)).toMatchObject({ code: "tls-error", alert: "bad_record_mac(20)" });
    expect(sessionEvents(lastSessionId()).at(-1)?.phase).toBe("failed");
  });
});

/** `openssl s_client` verifying our chain and name, tracing every record into `msgFile`. */
function sClient(port: number, msgFile: string) {
  const child = spawn("openssl", [...sClientArgs(port, HOST, caFile), "-verify_hostname", HOST, "-brief", "-msg", "-msgfile", msgFile]);
  const out = { stdout: "", stderr: "" };
  const progress = new EventEmitter();
  child.stdout.on("data", (d: Buffer) => {
    out.stdout += d.toString();
    progress.emit("data");
  });
  child.stderr.on("data", (d: Buffer) => {
    out.stderr += d.toString();
    progress.emit("data");
  });
  const waitFor = (seen: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!seen()) return;
        progress.off("data", check);
        resolve();
      };
      progress.on("data", check);
      check();
    });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, out, waitFor, exited };
}

describe("the system's openssl s_client completes a verified handshake, exchanges data and a KeyUpdate", () => {
  it("verifies the chain and the host name, echoes, and answers a KeyUpdate(update_requested) with its own", async () => {
    const msgFile = join(dir, "msg.txt");
    const { child, out, waitFor, exited } = sClient(server.port, msgFile);
    await waitFor(() => out.stderr.includes("Verification"));
    child.stdin.write("before the key update\n");
    await waitFor(() => out.stdout.includes("before the key update"));
    child.stdin.write("K\n"); // s_client: send KeyUpdate with update_requested
    await waitFor(() => out.stderr.includes("KEYUPDATE"));
    child.stdin.write("after the key update\n");
    await waitFor(() => out.stdout.includes("after the key update"));
    child.stdin.end("Q\n");
    expect(await exited).toBe(0);
    expect(out.stderr).toContain("Protocol version: TLSv1.3");
    expect(out.stderr).toContain("Ciphersuite: TLS_AES_128_GCM_SHA256");
    expect(out.stderr).toContain("Verification: OK");
    expect(out.stderr).toContain(`Verified peername: ${HOST}`);
    const trace = readFileSync(msgFile, "utf8");
    expect(trace).toMatch(/>>> TLS 1\.3, Handshake \[length 0005\], KeyUpdate/);
    expect(trace).toMatch(/<<< TLS 1\.3, Handshake \[length 0005\], KeyUpdate/); // ours, in answer
    await settle();
    const events = sessionEvents(lastSessionId());
    expect(events.at(-1)).toMatchObject({ phase: "closed", keyUpdates: 1, sni: HOST, alpn: null });
  });

  it("a KeyUpdate(update_requested) in the middle of a bulk download: our answer goes between data records and the rest decrypts under the new key", async () => {
    const LINE = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n";
    const block = new TextEncoder().encode(LINE.repeat(600)); // ~64 KiB of whole lines
    const streaming = await startTlsTestServer({
      ca,
      log,
      connectHost: HOST,
      serve: async (plain) => {
        let stopped = false;
        const reading = (async () => {
          for await (const chunk of plain.readable as unknown as AsyncIterable<Uint8Array>)
            if (new TextDecoder().decode(chunk).includes("stop")) stopped = true;
        })();
        const writer = plain.writable.getWriter();
        while (!stopped) await writer.write(block);
        await writer.close();
        await reading;
      },
    });
    // This session's last event, once it has ended (ids repeat across test servers, so it is
    // recognised as the first session established after this point).
    const ended = new Promise<EventOf<"tls.session">>((resolve) => {
      let id: string | null = null;
      const unsubscribe = log.subscribe((event) => {
        if (event.kind !== "tls.session") return;
        if (id === null && event.phase === "established") id = event.id;
        else if (event.id === id && (event.phase === "closed" || event.phase === "failed")) {
          unsubscribe();
          resolve(event);
        }
      });
    });
    const msgFile = join(dir, "bulk-msg.txt");
    const { child, out, waitFor, exited } = sClient(streaming.port, msgFile);
    await waitFor(() => out.stdout.length > 256 * 1024);
    child.stdin.write("K\n");
    await waitFor(() => out.stderr.includes("KEYUPDATE"));
    const atKeyUpdate = out.stdout.length;
    await waitFor(() => out.stdout.length > atKeyUpdate + 512 * 1024);
    child.stdin.write("stop\n"); // the server then ends the stream with close_notify, and s_client exits
    expect(await exited, out.stderr).toBe(0);
    expect(await ended).toMatchObject({ phase: "closed", keyUpdates: 1 });
    await streaming.close();
    const lines = out.stdout.split("\n");
    expect(lines.pop()).toBe(""); // ends on a whole line: nothing lost or cut
    expect(lines.filter((line) => `${line}\n` !== LINE)).toEqual([]);
    const trace = readFileSync(msgFile, "utf8");
    expect(trace).toMatch(/<<< TLS 1\.3, Handshake \[length 0005\], KeyUpdate/);
  });
});

// Key exchange groups: the server takes x25519 and secp256r1, uses a share it was sent rather
// than asking for another, and asks (HelloRetryRequest) only when it was sent none it takes.
// node:tls's ecdhCurve lists the groups offered, in order; OpenSSL sends a share for the first only.
describe("node:tls completes a verified handshake over the group the server chose", () => {
  it.each([
    ["prime256v1", "a P-256-only client", "prime256v1", "secp256r1", false],
    [
      "P-256:X25519",
      "a client sending a P-256 share and listing X25519 (no round trip for the preferred group)",
      "prime256v1",
      "secp256r1",
      false,
    ],
    ["X25519:P-256", "a client sending an X25519 share and listing P-256", "X25519", "x25519", false],
    ["X448:X25519:P-256", "a client whose share is X448 (HelloRetryRequest for the server's first choice)", "X25519", "x25519", true],
    [
      "P-384:P-256",
      "a client whose share is P-384 and that lists P-256 (HelloRetryRequest for secp256r1)",
      "prime256v1",
      "secp256r1",
      true,
    ],
  ] as const)("ecdhCurve %s, %s: exchanges data over %s", async (ecdhCurve, _what, keyExchange, group, helloRetry) => {
    const run = await nodeClient(server.port, { ecdhCurve }, Buffer.from(`over ${ecdhCurve}`));
    expect(run.error).toBeNull();
    expect(run.session).toMatchObject({ authorized: true, protocol: "TLSv1.3", keyExchange });
    expect(run.received.toString()).toBe(`over ${ecdhCurve}`);
    await settle();
    expect(sessionEvents(lastSessionId()).find((e) => e.phase === "established")).toMatchObject({ sni: HOST, group, helloRetry });
  });

  it("a client offering only P-384 is refused with handshake_failure, the verdict naming both sides' groups", async () => {
    const run = await nodeClient(server.port, { ecdhCurve: "P-384" }, Buffer.from("never"));
    expect(run.session).toBeNull();
    expect(run.error?.code).toBe("ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE");
    await settle();
    expect(log.ofKind("tls.verdict").at(-1)).toMatchObject({
      code: "tls-error",
      alert: "handshake_failure(40)",
      reason: "the client offers only secp384r1; this server takes x25519 or secp256r1",
    });
  });
});

describe("the system's openssl s_client limited to P-256 completes a verified handshake", () => {
  it.each([
    ["-groups", "P-256"],
    ["-curves", "prime256v1"],
  ])("s_client %s %s: verified, echoed, over secp256r1", async (flag, value) => {
    const out = await sClientEcho([...sClientArgs(server.port, HOST, caFile), flag, value], `through ${value}`);
    expect(out).toContain("Verify return code: 0 (ok)");
    expect(out).toContain("TLSv1.3");
    expect(out).toMatch(/Server Temp Key: ECDH, prime256v1, 256 bits/);
    expect(out).toContain(`through ${value}\n`);
    await settle();
    expect(sessionEvents(lastSessionId()).find((e) => e.phase === "established")).toMatchObject({
      sni: HOST,
      group: "secp256r1",
      helloRetry: false,
    });
  });
});

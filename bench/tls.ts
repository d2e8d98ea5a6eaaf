/**
 * TLS benchmark: our WebCrypto TLS 1.3 server (src/tls) against Node's native `tls` server,
 * same machine, same run, same client (node:tls), same parameters (TLS 1.3,
 * TLS_AES_128_GCM_SHA256, x25519, ECDSA P-256 certificate).
 *
 *   npx tsx bench/tls.ts [handshakes=100] [megabytes=16] [rounds=3]
 *
 * Both servers get the same warm-up (a few handshakes and a short transfer each way, so
 * neither is timed while its JIT or thread pool warms up), the rounds alternate between
 * them so a noisy neighbour hits both, and each figure is the median of the rounds.
 */
import "reflect-metadata";
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import * as tls from "node:tls";
import { X509CertificateGenerator } from "@peculiar/x509";
import type { ByteStream } from "../src/bytes";
import { createEventLog } from "../src/log";
import { createSessionCa, createTlsTerminator } from "../src/tls";
import { socketByteStream } from "../src/tls/testing/socket-stream";

const HOST = "example.com";
const HANDSHAKES = Number(process.argv[2] ?? 100);
const MEGABYTES = Number(process.argv[3] ?? 16);
const ROUNDS = Number(process.argv[4] ?? 3);
const WARM_UP_MEGABYTES = 4;
const CHUNK = 64 * 1024;

type Mode = "download" | "upload" | "handshake";

/** What the server does on the next connections: send `bytes` (download) or only read. */
interface Plan {
  mode: Mode;
  bytes: number;
}

/** The server side of each benchmark, given the plaintext stream: download sends, upload counts. */
async function serveBench(plan: Plan, write: (chunk: Uint8Array) => Promise<void>, end: () => Promise<void>): Promise<void> {
  if (plan.mode === "download") {
    const chunk = new Uint8Array(CHUNK).fill(0x5a);
    for (let sent = 0; sent < plan.bytes; sent += CHUNK) await write(chunk);
  }
  await end();
}

interface BenchServer {
  name: string;
  port: number;
  ca: string;
  plan(mode: Mode, bytes?: number): void;
  close(): Promise<void>;
}

function listen(server: Server | tls.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
}

async function ours(): Promise<BenchServer> {
  const ca = await createSessionCa();
  const terminator = createTlsTerminator({ ca, log: createEventLog({ capacity: 1000 }) });
  let plan: Plan = { mode: "handshake", bytes: 0 };
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.setNoDelay(true);
    void terminator
      .terminate(socketByteStream(socket), { host: HOST, port: 443, id: `b${next++}` })
      .then(async (plain: ByteStream | null) => {
        if (!plain) return;
        const writer = plain.writable.getWriter();
        const draining = plain.readable.pipeTo(new WritableStream());
        await serveBench(
          plan,
          (chunk) => writer.write(chunk),
          async () => {
            await draining.catch(() => undefined);
            await writer.close().catch(() => undefined);
          },
        );
      });
  });
  const port = await listen(server);
  return {
    name: "src/tls (WebCrypto)",
    port,
    ca: ca.certPem,
    plan: (mode, bytes = 0) => {
      plan = { mode, bytes };
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

async function native(): Promise<BenchServer> {
  // An extractable ECDSA P-256 key, since Node's tls wants PEM; otherwise the same certificate shape.
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const cert = await X509CertificateGenerator.createSelfSigned({
    name: `CN=${HOST}`,
    keys,
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
  });
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)?.join("\n")}\n-----END PRIVATE KEY-----\n`;
  let plan: Plan = { mode: "handshake", bytes: 0 };
  const sockets = new Set<Socket>();
  const server = tls.createServer(
    {
      key: keyPem,
      cert: cert.toString("pem"),
      minVersion: "TLSv1.3",
      ciphers: "TLS_AES_128_GCM_SHA256",
      ecdhCurve: "X25519",
      allowHalfOpen: true,
    },
    (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.setNoDelay(true);
      const ended = new Promise<void>((resolve) => socket.on("end", () => resolve()));
      socket.resume();
      void serveBench(
        plan,
        (chunk) => new Promise<void>((resolve) => (socket.write(chunk) ? resolve() : socket.once("drain", () => resolve()))),
        async () => {
          await ended;
          socket.end();
        },
      );
    },
  );
  const port = await listen(server);
  return {
    name: "node:tls (OpenSSL)",
    port,
    ca: cert.toString("pem"),
    plan: (mode, bytes = 0) => {
      plan = { mode, bytes };
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** One client connection: handshake, then upload `bytes` and/or read until the server closes. */
function client(server: BenchServer, upload: number): Promise<{ handshakeMs: number; received: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let handshakeMs = 0;
    let received = 0;
    const socket = tls.connect(
      { port: server.port, host: "127.0.0.1", ca: server.ca, servername: HOST, ALPNProtocols: ["http/1.1"] },
      async () => {
        handshakeMs = performance.now() - started;
        const chunk = Buffer.alloc(CHUNK, 0xa5);
        for (let sent = 0; sent < upload; sent += CHUNK)
          if (!socket.write(chunk)) await new Promise<void>((r) => socket.once("drain", () => r()));
        socket.end();
      },
    );
    socket.on("data", (d: Buffer) => {
      received += d.length;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ handshakeMs, received }));
  });
}

interface Result {
  handshakesPerSecond: number;
  downloadMBps: number;
  uploadMBps: number;
}

/** The same warm-up for both: handshakes (the leaf is minted on first use) and a short transfer each way. */
async function warmUp(server: BenchServer): Promise<void> {
  server.plan("handshake");
  for (let i = 0; i < 5; i++) await client(server, 0);
  const bytes = WARM_UP_MEGABYTES * 1024 * 1024;
  server.plan("download", bytes);
  await client(server, 0);
  server.plan("upload");
  await client(server, bytes);
}

async function measure(server: BenchServer): Promise<Result> {
  server.plan("handshake");
  const t0 = performance.now();
  for (let i = 0; i < HANDSHAKES; i++) await client(server, 0);
  const handshakesPerSecond = HANDSHAKES / ((performance.now() - t0) / 1000);

  const bytes = MEGABYTES * 1024 * 1024;
  server.plan("download", bytes);
  const t1 = performance.now();
  const down = await client(server, 0);
  const downloadMBps = down.received / 1024 / 1024 / ((performance.now() - t1 - down.handshakeMs) / 1000);
  if (down.received < bytes) throw new Error(`${server.name}: downloaded ${down.received} of ${bytes} bytes`);

  server.plan("upload");
  const t2 = performance.now();
  const up = await client(server, bytes);
  const uploadMBps = bytes / 1024 / 1024 / ((performance.now() - t2 - up.handshakeMs) / 1000);
  return { handshakesPerSecond, downloadMBps, uploadMBps };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const servers = [await ours(), await native()];
for (const server of servers) await warmUp(server);
const rounds: Result[][] = servers.map(() => []);
for (let round = 0; round < ROUNDS; round++) for (const [i, server] of servers.entries()) rounds[i]!.push(await measure(server));
for (const server of servers) await server.close();
const [a, b] = rounds.map(
  (results): Result => ({
    handshakesPerSecond: median(results.map((r) => r.handshakesPerSecond)),
    downloadMBps: median(results.map((r) => r.downloadMBps)),
    uploadMBps: median(results.map((r) => r.uploadMBps)),
  }),
) as [Result, Result];
const row = (label: string, x: number, y: number) =>
  `| ${label.padEnd(26)} | ${x.toFixed(1).padStart(19)} | ${y.toFixed(1).padStart(18)} | ${(x / y).toFixed(2).padStart(5)} |`;
console.log(
  `TLS 1.3, TLS_AES_128_GCM_SHA256, x25519, ECDSA P-256; ${HANDSHAKES} sequential handshakes; ${MEGABYTES} MB each way; median of ${ROUNDS} alternating rounds after a warm-up; Node ${process.version}`,
);
console.log(`| ${"".padEnd(26)} | ${servers[0]!.name.padStart(19)} | ${servers[1]!.name.padStart(18)} | ratio |`);
console.log(`|${"-".repeat(28)}|${"-".repeat(21)}|${"-".repeat(20)}|-------|`);
console.log(row("handshakes/s", a.handshakesPerSecond, b.handshakesPerSecond));
console.log(row("server→client MB/s", a.downloadMBps, b.downloadMBps));
console.log(row("client→server MB/s", a.uploadMBps, b.uploadMBps));

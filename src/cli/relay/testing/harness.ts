import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { type AddressInfo, createServer, type Server } from "node:net";
import { join } from "node:path";
import { openWire, type WireConnection, type WireOptions, type WireStream } from "./wisp-wire";

/**
 * Test helpers for `npx tab relay`: the relay as a child process (the real CLI), a local TCP
 * echo upstream on 127.0.0.1, and a bounded Wisp client of our own (wisp-wire.ts: it chooses
 * the upgrade's Origin, which wisp-js's Node client cannot).
 */

const root = join(import.meta.dirname, "..", "..", "..", "..");

export interface RunningRelay {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** The stream records printed so far (stdout, one JSON object a line). */
  records: () => Record<string, unknown>[];
  /** Resolves with the first record matching, printed now or later. */
  record: (matches: (record: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Runs `bin/tab.mjs relay` with `args`; resolves once it is listening. */
export async function runRelay(args: string[]): Promise<RunningRelay> {
  const child = spawn(process.execPath, [join(root, "bin", "tab.mjs"), "relay", "--port", "0", "--host", "127.0.0.1", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const records = () =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const record = async (matches: (record: Record<string, unknown>) => boolean) => {
    for (;;) {
      const found = records().find(matches);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
      const match = /tab relay listening on (ws:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`tab relay exited ${code}: ${stderr}`)));
  });
  return { url, child, stderr: () => stderr, records, record, exited };
}

/** Runs the CLI to completion: its exit code and what it printed. */
export async function runTab(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(root, "bin", "tab.mjs"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  return { code, stdout, stderr };
}

export interface EchoUpstream {
  server: Server;
  port: number;
  /** Connections accepted so far. */
  connections: () => number;
  /** SHA-256 (hex) of everything one connection received, once the relay closed it. */
  received: Promise<string>[];
}

/** A TCP echo server on 127.0.0.1 that hashes what each connection sends it. */
export async function echoUpstream(): Promise<EchoUpstream> {
  const received: Promise<string>[] = [];
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    const hash = createHash("sha256");
    socket.on("error", () => undefined);
    received.push(
      new Promise((resolve) => {
        socket.on("data", (chunk: Buffer) => {
          hash.update(chunk);
          socket.write(chunk);
        });
        socket.on("end", () => {
          socket.end();
          resolve(hash.digest("hex"));
        });
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections, received };
}

/** An open Wisp connection, once the relay has sent its first CONTINUE (a playground Origin unless told). */
export function openWisp(url: string, options: WireOptions = {}): Promise<WireConnection> {
  return openWire(url, options);
}

export interface TestStream {
  stream: WireStream;
  /** Everything received so far, concatenated. */
  received: () => Buffer;
  /** Resolves once at least `bytes` were received. */
  receivedAtLeast: (bytes: number) => Promise<Buffer>;
  /** The CLOSE reason the relay sent. */
  closed: Promise<number>;
}

export function openStream(connection: WireConnection, host: string, port: number): TestStream {
  const stream = connection.open(host, port);
  return { stream, received: stream.received, receivedAtLeast: stream.receivedAtLeast, closed: stream.closed };
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// The session CA and TLS inside CONNECT (a ClientHello naming another host than the CONNECT target is impossible by design,
// because the proxy sets SNI itself; docs/decisions/0005-the-page-is-the-only-network-client.md): `npx tab proxy` terminates TLS inside
// CONNECT with the same src/tls server as the page, driven by real clients (/usr/bin/curl,
// openssl s_client), all on 127.0.0.1.
//
// The local upstream is https on 127.0.0.1 with its own certificate for `upstream.test`, made by
// openssl for this test. The CLI's Node upstream (the TLS client towards the world) is told to
// trust it through NODE_EXTRA_CA_CERTS, Node's standard way to add a CA, set only in this
// test's child environment; `--resolve upstream.test=127.0.0.1` and
// `--allow-private-for-tests 127.0.0.1,::1` (test only) let the name `upstream.test` reach it
// (the name `localhost` is refused before any lookup, whatever the flags). Everything else is
// the production path: CONNECT decision, the session CA and TLS server, the Host check, the pinned node:https fetch with servername.
// The SNI test targets api.github.com, but nothing leaves the machine: the CONNECT decision
// does no DNS, and the handshake is refused before any request exists.

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const NO_PROXY_ENV = { ...process.env, NO_PROXY: "", no_proxy: "", HTTPS_PROXY: "", https_proxy: "" };

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a client to completion; a non-zero exit is an outcome to assert, not a test error. */
async function client(file: string, args: string[], input?: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env: NO_PROXY_ENV, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(input ?? "");
  });
}

/** curl through the running proxy, trusting `ca` (default: the session CA the proxy wrote). */
function curlViaProxy(args: string[], ca = caFile): Promise<Outcome> {
  return client("/usr/bin/curl", ["-sS", "--max-time", "20", "--cacert", ca, "-x", proxyUrl, ...args]);
}

interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses curl -i output after a CONNECT: the tunnel's 200, then the inner response. */
function innerResponse(stdout: string): Response {
  const blocks = stdout.split("\r\n\r\n");
  const headIndex = blocks.findIndex((b) => /^HTTP\/1\.1 (?!200 Connection Established)/.test(b));
  const [statusLine = "", ...lines] = (blocks[headIndex] ?? "").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(":")).toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
  return { status: Number(statusLine.split(" ")[1]), headers, body: blocks.slice(headIndex + 1).join("\r\n\r\n") };
}

interface LoggedEvent {
  kind: string;
  [field: string]: unknown;
}

let dir: string;
let caFile: string;
let upstream: Server;
let upstreamPort: number;
let proxyUrl: string;
let proxyAddress: string;
let child: ChildProcess;
let stdout = "";
let stderr = "";

const events = (): LoggedEvent[] =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedEvent);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tab-proxy-tls-"));
  caFile = join(dir, "ca.pem");
  const upstreamKey = join(dir, "upstream-key.pem");
  const upstreamCert = join(dir, "upstream-cert.pem");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    upstreamKey,
    "-out",
    upstreamCert,
    "-days",
    "1",
    "-subj",
    "/CN=upstream.test",
    "-addext",
    "subjectAltName=DNS:upstream.test",
  ]);
  upstream = createServer({ key: await readFile(upstreamKey), cert: await readFile(upstreamCert) }, (request, response) => {
    response.setHeader("content-type", "text/plain");
    response.end(`hello over tls ${request.method} ${request.url} host=${request.headers.host}`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;

  const policyFile = join(dir, "policy.yaml");
  await writeFile(policyFile, `version: 1\nhosts:\n  - host: upstream.test\n    ports: [${upstreamPort}]\n  - host: api.github.com\n`);
  child = spawn(
    process.execPath,
    [
      join(root, "bin", "tab.mjs"),
      "proxy",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--policy",
      policyFile,
      "--ca-out",
      caFile,
      "--allow-private-for-tests",
      "127.0.0.1,::1",
      "--resolve",
      "upstream.test=127.0.0.1",
    ],
    // TEST ONLY: the CLI's upstream trusts the local upstream's certificate.
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_EXTRA_CA_CERTS: upstreamCert } },
  );
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  proxyUrl = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
      const match = /tab proxy listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`tab proxy exited ${code}: ${stderr}`)));
  });
  proxyAddress = proxyUrl.slice("http://".length);
}, 60_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("npx tab proxy terminates TLS inside CONNECT", () => {
  it("writes the session CA to --ca-out as a PEM certificate whose fingerprint it prints", async () => {
    const pem = await readFile(caFile, "utf8");
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+-----END CERTIFICATE-----\r?\n?$/);
    const { stdout: fingerprint } = await run("openssl", ["x509", "-in", caFile, "-noout", "-fingerprint", "-sha256"]);
    const hex = fingerprint.split("=")[1]?.trim().replaceAll(":", "").toLowerCase();
    expect(stderr).toContain(`session CA sha256 ${hex} written to ${caFile}`);
  });

  it("serves an allowed https request through the tunnel to the local upstream, with SNI and Host checked", async () => {
    const result = await curlViaProxy(["-i", `https://upstream.test:${upstreamPort}/hello?x=1`]);
    expect(result.code).toBe(0);
    const response = innerResponse(result.stdout);
    expect(response).toMatchObject({ status: 200, body: `hello over tls GET /hello?x=1 host=upstream.test:${upstreamPort}` });
    expect(response.headers["x-verdict"]).toBe("served");
    await vi.waitFor(() => expect(stdout).toContain(`"target":"https://upstream.test:${upstreamPort}/hello?x=1"`), { timeout: 10_000 });
    const connect = events().find(
      (e) => e.kind === "proxy.decision" && e.target === `upstream.test:${upstreamPort}` && e.code === "served",
    );
    expect(connect).toBeDefined();
    expect(events()).toContainEqual(
      expect.objectContaining({ kind: "tls.session", id: connect?.id, phase: "established", sni: "upstream.test", alpn: "http/1.1" }),
    );
    expect(events()).toContainEqual(
      expect.objectContaining({ kind: "proxy.decision", mode: "tunnel", code: "served", status: 200, tlsSession: connect?.id }),
    );
  });

  it("serves a client limited to P-256 (curl --curves prime256v1): the session's key exchange group is secp256r1", async () => {
    const result = await curlViaProxy(["-i", "--curves", "prime256v1", `https://upstream.test:${upstreamPort}/hello?group=p256`]);
    expect(result.code).toBe(0);
    expect(innerResponse(result.stdout)).toMatchObject({
      status: 200,
      body: `hello over tls GET /hello?group=p256 host=upstream.test:${upstreamPort}`,
    });
    await vi.waitFor(() => expect(stdout).toContain(`"target":"https://upstream.test:${upstreamPort}/hello?group=p256"`), {
      timeout: 10_000,
    });
    const request = events().find(
      (e) => e.kind === "proxy.decision" && e.target === `https://upstream.test:${upstreamPort}/hello?group=p256`,
    );
    expect(events()).toContainEqual(
      expect.objectContaining({
        kind: "tls.session",
        id: request?.tlsSession,
        phase: "established",
        group: "secp256r1",
        helloRetry: false,
      }),
    );
  });

  it("refuses the handshake when SNI differs from the CONNECT host (curl --connect-to): sni-mismatch, alert unrecognized_name", async () => {
    const result = await curlViaProxy(["-v", "--connect-to", "evil.example:443:api.github.com:443", "https://evil.example/"]);
    // What curl really sends: --connect-to rewrites the CONNECT target, while the TLS
    // ClientHello still names the URL's host. That is domain fronting, refused in the handshake.
    expect(result.stderr).toContain("> CONNECT api.github.com:443 HTTP/1.1");
    expect(result.code).toBe(35); // CURLE_SSL_CONNECT_ERROR
    expect(result.stderr).toMatch(/tlsv1 unrecognized name/);
    await vi.waitFor(() => expect(stdout).toContain('"code":"sni-mismatch"'), { timeout: 10_000 });
    const connect = events().find((e) => e.kind === "proxy.decision" && e.target === "api.github.com:443");
    expect(events()).toContainEqual(
      expect.objectContaining({
        kind: "tls.verdict",
        session: connect?.id,
        target: "api.github.com:443",
        allowed: false,
        code: "sni-mismatch",
        alert: expect.stringContaining("unrecognized_name"),
      }),
    );
    expect(events()).toContainEqual(
      expect.objectContaining({ kind: "tls.session", id: connect?.id, phase: "failed", sni: "evil.example" }),
    );
    expect(events().filter((e) => e.kind === "proxy.decision" && e.tlsSession === connect?.id)).toEqual([]);
  });

  it("answers 421 host-header-mismatch to a request whose Host differs from the tunnel's host", async () => {
    const result = await curlViaProxy(["-i", "-H", "Host: other.example", `https://upstream.test:${upstreamPort}/hello`]);
    expect(result.code).toBe(0);
    const response = innerResponse(result.stdout);
    expect(response.status).toBe(421);
    expect(response.headers["x-verdict"]).toBe("host-header-mismatch");
    expect(JSON.parse(response.body)).toMatchObject({ verdict: "refused", code: "host-header-mismatch" });
    await vi.waitFor(() => expect(stdout).toContain('"code":"host-header-mismatch"'), { timeout: 10_000 });
  });

  it("presents a certificate that openssl s_client verifies fully (chain and host name) against the session CA", async () => {
    const result = await client("openssl", [
      "s_client",
      "-proxy",
      proxyAddress,
      "-connect",
      "api.github.com:443",
      "-servername",
      "api.github.com",
      "-verify_hostname",
      "api.github.com",
      "-verify_return_error",
      "-CAfile",
      caFile,
    ]);
    expect(result.stdout).toContain("Verify return code: 0 (ok)");
    expect(result.stdout).toMatch(/subject=CN ?= ?api\.github\.com/);
    expect(result.stdout).toMatch(/issuer=CN ?= ?Linux in a tab session CA/);
    expect(result.stdout).toMatch(/TLSv1\.3, Cipher is TLS_AES_128_GCM_SHA256/);
  });

  it("over its real socket never resumes with psk_ke: an OpenSSL client allowing it, with no share the server takes, gets a full handshake", async () => {
    const sessionFile = join(dir, "psk-ke-session.pem");
    const request = `GET /psk HTTP/1.1\r\nHost: upstream.test:${upstreamPort}\r\nConnection: close\r\n\r\n`;
    // -allow_no_dhe_kex offers psk_ke besides psk_dhe_ke; X448 first makes the only share one the server does not take.
    const sClient = (session: string[]) =>
      client(
        "openssl",
        [
          "s_client",
          "-proxy",
          proxyAddress,
          "-connect",
          `upstream.test:${upstreamPort}`,
          "-servername",
          "upstream.test",
          "-CAfile",
          caFile,
          "-verify_return_error",
          "-allow_no_dhe_kex",
          "-groups",
          "X448:X25519",
          "-ign_eof",
          ...session,
        ],
        request,
      );
    const full = await sClient(["-sess_out", sessionFile]);
    expect(full.stdout).toContain("hello over tls GET /psk");
    const again = await sClient(["-sess_in", sessionFile]);
    expect(again.stdout).toContain("hello over tls GET /psk");
    expect(again.stdout).toContain("New, TLSv1.3");
    const established = events().filter((e) => e.kind === "tls.session" && e.phase === "established" && e.connectHost === "upstream.test");
    expect(established.at(-1)).toMatchObject({ resumed: false, helloRetry: true, group: "x25519" });
  });

  it("is not trusted by a client that trusts another CA only (here the upstream's own): the tunnel never relays upstream TLS", async () => {
    const result = await curlViaProxy([`https://upstream.test:${upstreamPort}/hello`], join(dir, "upstream-cert.pem"));
    expect(result.code).toBe(60); // CURLE_PEER_FAILED_VERIFICATION
  });
});

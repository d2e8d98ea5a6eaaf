// bench/wire: 16 MiB guest→page and page→guest over the page's own TCP/IP peer (src/net),
// against the same transfers over v86's built-in `fetch` network backend, on the same guest
// image in the same run. Several runs; median; ratio (goal ≥ 1.0).
//
// How v86 0.5.462's fetch backend carries HTTP (src/browser/fetch_network.js, docs/networking.md):
// it accepts every guest TCP connection to port 80, whatever the destination address
// (masquerade), parses one HTTP/1.1 request, takes the URL's host from the Host header and
// calls the page's fetch() with it; the response is streamed back with `connection: close`.
// PUT and POST bodies are carried, but only with Content-Length, and the whole body is
// buffered before fetch() starts. Its router answers as 10.0.2.2 (net_device router_ip in
// src/page/emulator/boot.ts) so the guest's static 10.0.2.15/24 via 10.0.2.2 works unchanged.
// So the guest talks to http://10.0.2.2/… with `Host: 127.0.0.1:<port>`, and v86 fetches
// http://127.0.0.1:<port>/… from this script's HTTP server (CORS headers, 127.0.0.1 only).
// The src/net side is a page-side HTTP responder on the peer (as in e2e/wire.spec.ts).
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page } from "@playwright/test";
import { runInGuest, waitForGuest } from "../e2e/support/guest";
import { median, snapshotSettled, startBenchPage, table } from "./_browser";

/** 16 MiB; BENCH_WIRE_MIB picks another size (e.g. 1 for a quick check of the setup). */
const SIZE = Number(process.env.BENCH_WIRE_MIB ?? 16) * 1024 * 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PAGE_PORT = Number(process.env.BENCH_PORT ?? 4496);
const PEER_PORT = 7780; // the page-side responder on the src/net peer
const COMMAND_TIMEOUT_MS = 900_000;

/** The deterministic bytes both servers send (the same xorshift as e2e/wire.spec.ts). */
function pattern(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = 0x12345678;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const BLOB = pattern(SIZE);
const BLOB_SHA = createHash("sha256").update(BLOB).digest("hex");

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, PUT, POST",
  "access-control-allow-headers": "*",
  "access-control-max-age": "600",
};

/** What v86's fetch() reaches: GET /blob answers the pattern; PUT/POST answers "<bytes> <sha256>". */
function upstreamHandler(request: IncomingMessage, response: ServerResponse): void {
  if (request.method === "OPTIONS") {
    response.writeHead(204, CORS).end();
    return;
  }
  if (request.method === "GET" && request.url?.startsWith("/blob")) {
    response.writeHead(200, { ...CORS, "content-type": "application/octet-stream", "content-length": String(BLOB.length) });
    response.end(BLOB);
    return;
  }
  if (request.method === "PUT" || request.method === "POST") {
    const hash = createHash("sha256");
    let bytes = 0;
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    request.on("end", () => {
      response.writeHead(200, { ...CORS, "content-type": "text/plain" });
      response.end(`${bytes} ${hash.digest("hex")}\n`);
    });
    return;
  }
  response.writeHead(404, CORS).end();
}

/** Registers the page-side responder on the src/net peer: GET /blob, PUT answers "<bytes> <sha256>". */
async function listenOnPeer(page: Page): Promise<void> {
  await page.evaluate(
    ({ port, size }) => {
      const network = window.__tab?.network;
      if (!network) throw new Error("no page network (was the page opened with ?net=v86-fetch?)");
      const blob = new Uint8Array(size);
      let x = 0x12345678;
      for (let i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        blob[i] = x & 0xff;
      }
      // No named inner functions here: tsx would wrap them in a `__name` helper the page lacks.
      network.peer.listen(port, (stream) => {
        void (async () => {
          const reader = stream.readable.getReader();
          const writer = stream.writable.getWriter();
          const parts: Uint8Array[] = [];
          let got = 0;
          let head = "";
          let headEnd = -1;
          while (headEnd < 0) {
            const { done, value } = await reader.read();
            if (done) return;
            parts.push(value);
            got += value.length;
            head += new TextDecoder("latin1").decode(value);
            headEnd = head.indexOf("\r\n\r\n");
          }
          const [method] = head.split(" ");
          const length = Number(/content-length: *(\d+)/i.exec(head.slice(0, headEnd))?.[1] ?? 0);
          const bodyStart = headEnd + 4;
          while (got - bodyStart < length) {
            const { done, value } = await reader.read();
            if (done) break;
            parts.push(value);
            got += value.length;
          }
          let reply: Uint8Array;
          if (method === "PUT" || method === "POST") {
            const all = new Uint8Array(got);
            let o = 0;
            for (const p of parts) {
              all.set(p, o);
              o += p.length;
            }
            const body = all.subarray(bodyStart);
            const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
            const sha = Array.from(digest, (v) => v.toString(16).padStart(2, "0")).join("");
            reply = new TextEncoder().encode(`${body.length} ${sha}\n`);
          } else reply = blob;
          await writer.write(new TextEncoder().encode(`HTTP/1.1 200 OK\r\nContent-Length: ${reply.length}\r\nConnection: close\r\n\r\n`));
          for (let i = 0; i < reply.length; i += 65536) await writer.write(reply.subarray(i, i + 65536));
          await writer.close();
        })().catch((e) => console.log(`responder: ${e}`));
      });
    },
    { port: PEER_PORT, size: SIZE },
  );
}

interface Backend {
  name: string;
  page: Page;
  context: BrowserContext;
  /** The guest's base URL and extra curl arguments for this backend. */
  url: string;
  curlArgs: string;
  /** The sha256 of /tmp/up.bin in this guest. */
  uploadSha: string;
  down: number[];
  up: number[];
  downCurl: number[];
  upCurl: number[];
}

async function openBackend(
  bench: { browser: import("@playwright/test").Browser; url: string },
  name: string,
  query: string,
): Promise<Backend> {
  const context = await bench.browser.newContext({ viewport: { width: 1280, height: 720 } });
  // Nothing leaves the machine: only 127.0.0.1 (the page and this script's server) is reachable.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort("blockedbyclient"));
  const page = await context.newPage();
  page.on("pageerror", (error) => console.log(`[${name} page error] ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "warning" || message.type() === "error") console.log(`[${name} console] ${message.text().slice(0, 300)}`);
  });
  const t0 = performance.now();
  await page.goto(`${bench.url}${query}`);
  await waitForGuest(page);
  console.log(`${name}: guest ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { name, page, context, url: "", curlArgs: "", uploadSha: "", down: [], up: [], downCurl: [], upCurl: [] };
}

async function guest(page: Page, command: string): Promise<string> {
  const t0 = performance.now();
  const { output, status } = await runInGuest(page, command, COMMAND_TIMEOUT_MS);
  if (process.env.BENCH_VERBOSE) console.log(`  [${((performance.now() - t0) / 1000).toFixed(1)} s] ${command}`);
  if (status !== 0) throw new Error(`guest command failed (${status}): ${command}\n${output}`);
  return output.trim();
}

/** Writes SIZE random bytes to /tmp/up.bin in the guest; returns its sha256. */
async function prepareUpload(backend: Backend): Promise<void> {
  const out = await guest(backend.page, `head -c ${SIZE} /dev/urandom > /tmp/up.bin && sha256sum /tmp/up.bin`);
  backend.uploadSha = out.split(/\s+/)[0] ?? "";
}

/** Once, untimed: the downloaded bytes are the pattern (sha256 compared). */
async function verifyDownload(backend: Backend): Promise<void> {
  const out = await guest(backend.page, `curl -sS --noproxy '*' ${backend.curlArgs} ${backend.url}/blob | sha256sum`);
  if (out.split(/\s+/)[0] !== BLOB_SHA) throw new Error(`${backend.name}: downloaded bytes differ: ${out} vs ${BLOB_SHA}`);
}

async function measureDownload(backend: Backend): Promise<void> {
  const t0 = performance.now();
  const out = await guest(
    backend.page,
    `curl -sS --noproxy '*' ${backend.curlArgs} -o /dev/null -w '%{http_code} %{size_download} %{time_total}' ${backend.url}/blob`,
  );
  const ms = performance.now() - t0;
  const [code, bytes, seconds] = out.split(/\s+/);
  if (code !== "200" || Number(bytes) !== SIZE) throw new Error(`${backend.name} download: ${out}`);
  backend.down.push(ms / 1000);
  backend.downCurl.push(Number(seconds));
}

async function measureUpload(backend: Backend): Promise<void> {
  const t0 = performance.now();
  // `Expect:` off: neither server sends 100-continue, and curl would wait a second for it.
  const out = await guest(
    backend.page,
    `curl -sS --noproxy '*' ${backend.curlArgs} -H 'Expect:' -T /tmp/up.bin -w '\\n%{http_code} %{size_upload} %{time_total}' ${backend.url}/upload`,
  );
  const ms = performance.now() - t0;
  const lines = out.split("\n").map((l) => l.trim());
  const [bytes, sha] = (lines[0] ?? "").split(" ");
  const [code, , seconds] = (lines[lines.length - 1] ?? "").split(" ");
  if (code !== "200" || Number(bytes) !== SIZE || sha !== backend.uploadSha) throw new Error(`${backend.name} upload: ${out}`);
  backend.up.push(ms / 1000);
  backend.upCurl.push(Number(seconds));
}

async function main(): Promise<void> {
  const upstream = createServer(upstreamHandler);
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const upstreamPort = (upstream.address() as AddressInfo).port;
  const bench = await startBenchPage(PAGE_PORT);
  const backends: Backend[] = [];
  try {
    const peer = await openBackend(bench, "src/net peer", "");
    await snapshotSettled(peer.page);
    await listenOnPeer(peer.page);
    peer.url = `http://10.0.2.2:${PEER_PORT}`;
    const fetchBackend = await openBackend(bench, "v86 fetch", "?net=v86-fetch");
    fetchBackend.url = "http://10.0.2.2";
    fetchBackend.curlArgs = `-H 'Host: 127.0.0.1:${upstreamPort}'`;
    backends.push(peer, fetchBackend);

    for (const backend of backends) {
      await prepareUpload(backend);
      await verifyDownload(backend);
    }
    // Interleaved, so a slow moment on the shared machine hits both backends alike.
    for (let run = 1; run <= RUNS; run++) {
      for (const backend of backends) {
        await measureDownload(backend);
        await measureUpload(backend);
      }
      console.log(
        `run ${run}/${RUNS}: ${backends.map((b) => `${b.name} down ${b.down.at(-1)?.toFixed(2)} s, up ${b.up.at(-1)?.toFixed(2)} s`).join("; ")}`,
      );
    }
  } finally {
    for (const backend of backends) await backend.context.close().catch(() => undefined);
    await bench.stop().catch((error: Error) => console.log(`stopping the preview server: ${error.message}`));
    upstream.close();
  }

  const [peer, v86] = backends as [Backend, Backend];
  const mbps = (seconds: number) => SIZE / 1e6 / seconds;
  const spread = (v: number[]) => `${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)}`;
  const row = (direction: string, a: number[], b: number[]) => [
    direction,
    mbps(median(a)).toFixed(2),
    mbps(median(b)).toFixed(2),
    (median(b) / median(a)).toFixed(2),
    spread(a),
    spread(b),
  ];
  const header = ["direction", "src/net MB/s", "v86 fetch MB/s", "ratio src/net÷fetch (goal ≥ 1.0)", "src/net s", "v86 fetch s"];
  console.log(`\n${SIZE / 1024 / 1024} MiB per transfer, ${RUNS} runs each, median (MB = 10^6 bytes)`);
  // curl's %{time_total} is the transfer itself; the guest's clock follows real time (v86 derives
  // its TSC from performance.now()). The driver's wall time adds typing the command into the
  // serial console and reading the output back, which costs seconds on a loaded machine.
  console.log("\ntransfer time as curl measures it in the guest:\n");
  console.log(
    table([header, row("guest→page (curl -T, PUT)", peer.upCurl, v86.upCurl), row("page→guest (curl GET)", peer.downCurl, v86.downCurl)]),
  );
  console.log("\nwall time of the whole guest command, seen by the page driver (console round trip included):\n");
  console.log(table([header, row("guest→page (curl -T, PUT)", peer.up, v86.up), row("page→guest (curl GET)", peer.down, v86.down)]));
  console.log(
    "\nv86 fetch: the guest's request goes to 10.0.2.2:80 with Host 127.0.0.1:<port>; v86 carries PUT/POST bodies, but buffers the whole body (Content-Length only) before fetch() starts; this script's local HTTP server answers.",
  );
}

await main();

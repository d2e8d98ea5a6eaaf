import { describe, expect, it } from "vitest";
import { utf8 } from "../bytes";
import { createEventLog } from "../log";
import { DEFAULT_POLICY } from "../policy";
import { createProxy, parseRequestHead } from "./index";
import { memoryConnection, parseResponse, recordedFetch } from "./testing/memory";

// The guest is untrusted; anything two HTTP parsers
// could read differently (request smuggling) is refused with bad-request and a specific reason.

const ok = "GET https://api.github.com/zen HTTP/1.1\r\nHost: api.github.com\r\n";

function proxyUnderTest() {
  const log = createEventLog();
  const fetch = recordedFetch(() => new Response("ok", { headers: { "content-length": "2" } }));
  return { proxy: createProxy({ policy: () => DEFAULT_POLICY, fetch, clock: () => 0, log, ownHost: "10.0.2.2:3128" }), log, fetch };
}

async function send(bytes: Uint8Array | string): Promise<string> {
  const { proxy } = proxyUnderTest();
  const client = memoryConnection();
  const done = proxy.handle(client.server);
  await client.send(bytes);
  void client.end();
  const raw = await client.readToEnd();
  await done;
  return raw;
}

describe("the smuggling table: each is refused 400 bad-request with its own reason", () => {
  it.each([
    [
      "both Content-Length and Transfer-Encoding",
      `${ok}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n`,
      "both Content-Length and Transfer-Encoding",
    ],
    ["two Content-Length headers", `${ok}Content-Length: 3\r\nContent-Length: 3\r\n\r\n`, "duplicate Content-Length"],
    ["a Content-Length list", `${ok}Content-Length: 3, 3\r\n\r\n`, "invalid Content-Length"],
    ["a signed Content-Length", `${ok}Content-Length: +3\r\n\r\n`, "invalid Content-Length"],
    ["a Transfer-Encoding other than chunked", `${ok}Transfer-Encoding: gzip, chunked\r\n\r\n`, "only chunked"],
    [
      "two Transfer-Encoding headers",
      `${ok}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n`,
      "duplicate Transfer-Encoding",
    ],
    ["obs-fold", `${ok}X-A: 1\r\n  folded\r\n\r\n`, "obs-fold"],
    ["a bare CR inside a header", `${ok}X-A: 1\r2\r\n\r\n`, "bare CR"],
    ["a bare LF line ending", "GET https://api.github.com/zen HTTP/1.1\nHost: api.github.com\n\n", "bare LF"],
    ["whitespace before the colon", `${ok}Host : x\r\n\r\n`, "not a token"],
    ["a method that is not a token", "G(T https://api.github.com/zen HTTP/1.1\r\nHost: api.github.com\r\n\r\n", "not a token"],
    ["a header name that is not a token", `${ok}X[A]: 1\r\n\r\n`, "not a token"],
    ["a NUL in a header value", `${ok}X-A: a\u0000b\r\n\r\n`, "control character"],
    ["two spaces in the request line", "GET  https://api.github.com/zen HTTP/1.1\r\nHost: a\r\n\r\n", "malformed request line"],
    ["HTTP/2.0 in the request line", "GET https://api.github.com/zen HTTP/2.0\r\nHost: a\r\n\r\n", "not supported"],
    ["no Host header", "GET https://api.github.com/zen HTTP/1.1\r\n\r\n", "without a Host"],
    ["two Host headers", `${ok}Host: evil.example\r\n\r\n`, "duplicate Host"],
    ["an unsupported Expect", `${ok}Expect: 200-ok\r\n\r\n`, "Expect"],
    ["headers over 16 KiB", `${ok}X-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`, "exceeds 16384 bytes"],
    ["a head cut off by the end of the connection", `${ok}X-A: 1\r\n`, "ended inside the request head"],
    [
      "a chunk size that is not hex",
      `GET https://api.github.com/zen HTTP/1.1\r\nHost: api.github.com\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      "invalid chunk-size",
    ],
    [
      "a chunk not followed by CRLF",
      `GET https://api.github.com/zen HTTP/1.1\r\nHost: api.github.com\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n0\r\n\r\n`,
      "not followed by CRLF",
    ],
  ])("%s", async (_name, request, reason) => {
    const response = parseResponse(await send(request));
    expect(response.status).toBe(400);
    expect(response.headers["x-verdict"]).toBe("bad-request");
    expect(response.headers.connection).toBe("close");
    expect(JSON.parse(response.body).reason).toContain(reason);
  });

  it("accepts a well-formed head and reads its framing", () => {
    const parsed = parseRequestHead(utf8(`${ok}Content-Length: 12\r\nConnection: close\r\n\r\n`));
    expect(parsed).toMatchObject({
      ok: true,
      head: { method: "GET", version: "1.1", framing: { kind: "length", length: 12 }, keepAlive: false },
    });
  });

  it("skips empty lines before the request line (RFC 9112 §2.2)", async () => {
    expect(parseResponse(await send(`\r\n\r\n${ok}\r\n`)).status).toBe(200);
  });
});

/** A small deterministic PRNG (mulberry32) so a failing fuzz case can be replayed by seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEEDS = [
  `${ok}\r\n`,
  `POST https://api.github.com/repos/a HTTP/1.1\r\nHost: api.github.com\r\nContent-Length: 5\r\n\r\nhello`,
  `POST https://api.github.com/repos/a HTTP/1.1\r\nHost: api.github.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n",
  "GET /v0/policy HTTP/1.1\r\nHost: 10.0.2.2:3128\r\n\r\n",
];
const INTERESTING = [
  "\r",
  "\n",
  "\r\n",
  " ",
  "\t",
  ":",
  "\0",
  "\x7f",
  "\xff",
  "chunked",
  "Content-Length: 1\r\n",
  "Transfer-Encoding: chunked\r\n",
  "%2e%2e",
  "@",
  "[::1]",
];

function mutate(random: () => number, seed: string): string {
  let text = seed;
  const steps = 1 + Math.floor(random() * 4);
  for (let i = 0; i < steps; i++) {
    const at = Math.floor(random() * (text.length + 1));
    const choice = random();
    if (choice < 0.3) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 4));
    else if (choice < 0.7) text = text.slice(0, at) + INTERESTING[Math.floor(random() * INTERESTING.length)] + text.slice(at);
    else text = text.slice(0, at) + String.fromCharCode(Math.floor(random() * 256)) + text.slice(at + 1);
  }
  return text;
}

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);

describe("fuzzing the parser: no exception escapes, every answer carries a verdict", () => {
  it("parseRequestHead never throws on random bytes", () => {
    const random = prng(1);
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256));
      const result = parseRequestHead(bytes);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
    }
  });

  it("random garbage connections each get 400 bad-request", async () => {
    const random = prng(2);
    for (let i = 0; i < 150; i++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 300) }, () => Math.floor(random() * 256));
      const response = parseResponse(await send(bytes));
      expect(response.status).toBe(400);
      expect(response.headers["x-verdict"]).toBe("bad-request");
    }
  });

  it("mutated requests each get an HTTP answer with X-Verdict, and 400 whenever the head does not parse", async () => {
    const random = prng(3);
    for (let i = 0; i < 300; i++) {
      const request = mutate(random, SEEDS[i % SEEDS.length]!);
      const { proxy, log } = proxyUnderTest();
      const client = memoryConnection();
      const done = proxy.handle(client.server);
      await client.send(latin1(request));
      void client.end();
      const raw = await client.readToEnd();
      await done;
      const answers = raw.match(/HTTP\/1\.1 \d{3} /g) ?? [];
      const decisions = log.ofKind("proxy.decision");
      expect(decisions.length, JSON.stringify(request)).toBe(raw.split("X-Verdict:").length - 1);
      for (const decision of decisions) if (decision.code === "bad-request") expect(decision.status).toBe(400);
      if (raw.length > 0) expect(answers.length).toBeGreaterThan(0);
    }
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createEventLog, VERDICT_CODES } from "../log";
import { DEFAULT_POLICY } from "../policy";
import { readBody } from "./body";
import { HEAD_LIMIT, parseRequestHead } from "./index";
import type { GrowthStats } from "./limits";
import { createProxy } from "./proxy";
import { memoryConnection, recordedFetch, sourceOf } from "./testing/memory";

// Property-based fuzzing of everything a client controls: request heads, bodies,
// chunk framing and the /v0/fetch JSON. Properties: no exception escapes; the answer is a
// valid parse or a coded refusal; work and memory are linear in the input (asserted on counts
// of operations and bytes, never on time). Seeded, and bounded so each runs in about a second.

const SEED = 16;
const OWN = "10.0.2.2:3128";
const KNOWN_CODES = new Set<string>(VERDICT_CODES);
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);

/** The pieces a connection delivers `bytes` in: cut at arbitrary points (1-byte pieces included). */
function piecesOf(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const at of [...points, bytes.length]) {
    if (at > from) pieces.push(bytes.subarray(from, at));
    from = Math.max(from, at);
  }
  return pieces;
}

// Request heads from a small grammar, with the characters that matter to parsers thrown in.
const methodArb = fc.constantFrom("GET", "POST", "HEAD", "PUT", "get", "Get", "CONNECT", "connect", "TRACE", "OPTIONS", "G(T", "");
const targetArb = fc.constantFrom(
  "https://api.github.com/zen",
  "http://api.github.com/repos/a",
  "https://pastebin.com/x",
  "/v0/fetch",
  "/v0/log",
  "/v0/policy",
  "api.github.com:443",
  "*",
  "https://2130706433/",
  "",
);
const nastyText = fc.stringMatching(/^[ \t\r\na-z0-9:;,=\-\0\x7f\xff]{0,40}$/);
const headerArb = fc.oneof(
  fc.tuple(fc.constantFrom("Host", "host", "HOST"), fc.constantFrom("api.github.com", OWN, "pastebin.com", "", " api.github.com ")),
  fc.tuple(fc.constantFrom("Content-Length", "content-length"), fc.oneof(fc.nat({ max: 64 }).map(String), nastyText)),
  fc.tuple(fc.constantFrom("Transfer-Encoding"), fc.constantFrom("chunked", "Chunked", "gzip, chunked", "chunked ")),
  fc.tuple(fc.constantFrom("Content-Type"), fc.constantFrom("application/json", "text/plain", "multipart/form-data")),
  fc.tuple(fc.constantFrom("Origin", "Sec-Fetch-Site"), fc.constantFrom(`http://${OWN}`, "https://evil.example", "cross-site", "null")),
  fc.tuple(fc.constantFrom("Expect", "Connection"), fc.constantFrom("100-continue", "close", "keep-alive", "bogus")),
  fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,12}$/), nastyText),
  fc.tuple(nastyText, nastyText),
);
const chunkedBodyArb = fc
  .array(fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom("", ";ext", ";a=b", ";\x01")), { maxLength: 8 })
  .map((chunks) => `${chunks.map(([data, ext]) => `${data.length.toString(16)}${ext}\r\n${data}\r\n`).join("")}0\r\n\r\n`);
const bodyArb = fc.oneof(
  fc.constant(""),
  fc.string({ maxLength: 64 }),
  chunkedBodyArb,
  fc.constant('{"url":"https://api.github.com/zen"}'),
);
const requestArb = fc
  .tuple(
    methodArb,
    targetArb,
    fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "http/1.1"),
    fc.array(headerArb, { maxLength: 6 }),
    bodyArb,
  )
  .map(
    ([method, target, version, headers, body]) =>
      `${method} ${target} ${version}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n${body}`,
  );
const anyRequestBytes = fc.oneof(
  { weight: 3, arbitrary: requestArb.map(latin1) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.tuple(fc.nat({ max: 40 }), requestArb).map(([n, r]) => latin1("\r\n".repeat(n) + r)) },
);

function proxyUnderTest() {
  const log = createEventLog({ clock: () => 0 });
  const fetch = recordedFetch(() => new Response("hello", { headers: { "content-length": "5" } }));
  const proxy = createProxy({ policy: () => DEFAULT_POLICY, fetch, clock: () => 0, log, ownHost: OWN, maxChunks: 64, maxBodyBytes: 4096 });
  return { proxy, log, fetch };
}

/** Drives one connection with `pieces`; what came back, and the log. */
async function drive(pieces: Uint8Array[]) {
  const { proxy, log, fetch } = proxyUnderTest();
  const client = memoryConnection();
  const done = proxy.handle(client.server);
  void (async () => {
    for (const piece of pieces) await client.send(piece);
    await client.end();
  })().catch(() => undefined); // a proxy that refused stops reading; the rest is not sent
  const raw = await client.readToEnd();
  await done; // never rejects (the property)
  return { raw, decisions: log.ofKind("proxy.decision"), fetches: fetch.calls.length };
}

describe("fuzzing HTTP heads: a valid parse or a reason, in linear work", () => {
  it("parseRequestHead never throws, and its steps stay within a constant times the head's size", () => {
    fc.assert(
      fc.property(anyRequestBytes, (bytes) => {
        const meter = { steps: 0 };
        const parsed = parseRequestHead(bytes, meter);
        if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
        expect(meter.steps).toBeLessThanOrEqual(8 * bytes.length + 64);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it("a head with long runs of blanks, colons or CRs is judged in linear steps", () => {
    fc.assert(
      fc.property(fc.constantFrom(" ", "\t", ":", "\r", "a", " \t"), fc.integer({ min: 1, max: 8000 }), (unit, n) => {
        const bytes = latin1(`GET https://api.github.com/zen HTTP/1.1\r\nHost: api.github.com\r\nX-A: x${unit.repeat(n)}y\r\n\r\n`);
        const meter = { steps: 0 };
        parseRequestHead(bytes, meter);
        expect(meter.steps).toBeLessThanOrEqual(8 * bytes.length + 64);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe("fuzzing whole connections: every answer is coded, with exactly one decision each", () => {
  it("no exception escapes, every answer carries a known X-Verdict code, and answers equal decisions", async () => {
    await fc.assert(
      fc.asyncProperty(anyRequestBytes, fc.array(fc.nat(), { maxLength: 12 }), async (bytes, cuts) => {
        const { raw, decisions, fetches } = await drive(piecesOf(bytes, cuts));
        const verdicts = [...raw.matchAll(/\r\nX-Verdict: ([^\r]*)\r\n/g)].map((m) => m[1]!);
        for (const code of verdicts) expect(KNOWN_CODES.has(code), code).toBe(true);
        expect(decisions.length).toBe(verdicts.length);
        for (const decision of decisions) expect(KNOWN_CODES.has(decision.code)).toBe(true);
        expect(fetches).toBeLessThanOrEqual(decisions.filter((d) => d.allowed).length);
        if (bytes.some((b) => b !== 0x0d && b !== 0x0a)) expect(decisions.length).toBeGreaterThan(0);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it("reading heads and bodies copies and scans each received byte a bounded number of times, however it is split", async () => {
    await fc.assert(
      fc.asyncProperty(anyRequestBytes, fc.array(fc.nat(), { maxLength: 40 }), async (bytes, cuts) => {
        const source = sourceOf(piecesOf(bytes, cuts));
        for (let i = 0; i < 4; i++) {
          const head = await source.readHead(HEAD_LIMIT);
          if (head.kind !== "head") break;
          const parsed = parseRequestHead(head.bytes);
          if (!parsed.ok) break;
          const body = await readBody(source, parsed.head.framing, { limits: { maxBodyBytes: 4096, maxChunks: 64 }, lease: null });
          if (!body.ok) break;
        }
        expect(source.stats.copied).toBeLessThanOrEqual(3 * source.stats.received + 16);
        expect(source.stats.scanned).toBeLessThanOrEqual(source.stats.received);
      }),
      { seed: SEED, numRuns: 600 },
    );
  });
});

describe("fuzzing chunk framing: the exact body or a coded failure, in memory linear in the body", () => {
  const chunksArb = fc.array(fc.tuple(fc.uint8Array({ maxLength: 300 }), fc.constantFrom("", ";x", ";name=value", ";\t")), {
    maxLength: 30,
  });

  it("well-formed chunks, split anywhere, read back exactly; the buffer allocates at most 4 times the body", async () => {
    await fc.assert(
      fc.asyncProperty(chunksArb, fc.array(fc.nat(), { maxLength: 60 }), async (chunks, cuts) => {
        const parts: Uint8Array[] = [];
        for (const [data, ext] of chunks) {
          if (data.length === 0) continue; // a 0-size chunk is the last one
          parts.push(latin1(`${data.length.toString(16)}${ext}\r\n`), data, latin1("\r\n"));
        }
        parts.push(latin1("0\r\n\r\n"));
        const wire = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let at = 0;
        for (const p of parts) {
          wire.set(p, at);
          at += p.length;
        }
        const expected = chunks.filter(([d]) => d.length > 0).flatMap(([d]) => [...d]);
        const stats: GrowthStats = { copied: 0, allocated: 0 };
        const read = await readBody(
          sourceOf(piecesOf(wire, cuts)),
          { kind: "chunked" },
          {
            limits: { maxBodyBytes: 1 << 20, maxChunks: 1000 },
            lease: null,
            stats,
          },
        );
        expect(read.ok).toBe(true);
        if (read.ok) expect([...read.body]).toEqual(expected);
        expect(stats.allocated).toBeLessThanOrEqual(4 * expected.length + 2048);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("arbitrary bytes as a chunked body give a body or a coded failure (400, 413 or 503), never a throw", async () => {
    const lineArb = fc.oneof(
      fc.constantFrom(
        "0\r\n\r\n",
        "1\r\na\r\n",
        "ffffffff\r\n",
        "1;\x00\r\n",
        "\r\n",
        "\n",
        "\r",
        "zz\r\n",
        "1\r\nab\r\n",
        "0\r\nX: y\r\n\r\n",
      ),
      fc.string({ maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 20 }), async (lines, cuts) => {
        const read = await readBody(
          sourceOf(piecesOf(latin1(lines.join("")), cuts)),
          { kind: "chunked" },
          {
            limits: { maxBodyBytes: 4096, maxChunks: 8 },
            lease: null,
          },
        );
        if (!read.ok) {
          expect(["bad-request", "too-large"]).toContain(read.failure.code);
          expect([400, 413, 503]).toContain(read.failure.status);
          expect(read.failure.reason.length).toBeGreaterThan(0);
        }
      }),
      { seed: SEED, numRuns: 800 },
    );
  });
});

describe("fuzzing the /v0/fetch JSON: an answer or a coded refusal, one decision, at most one fetch", () => {
  const fetchJsonArb = fc.oneof(
    fc.json({ maxDepth: 3 }),
    fc
      .record(
        {
          method: fc.constantFrom("GET", "POST", "get", "CONNECT", "TRACE", "G T", 5),
          url: fc.constantFrom("https://api.github.com/zen", "https://pastebin.com/x", "not a url", "", 7),
          headers: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
          body: fc.oneof(fc.constant(null), fc.string({ maxLength: 40 }), fc.constantFrom("AAEC", "====A", "A===", "QQ==")),
          base64: fc.boolean(),
          extra: fc.string({ maxLength: 4 }),
        },
        { requiredKeys: [] },
      )
      .map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 80 }),
  );

  it("never throws; 200 with a JSON answer or a refusal with a known code, one decision, at most one fetch", async () => {
    await fc.assert(
      fc.asyncProperty(fetchJsonArb, async (json) => {
        const body = new TextEncoder().encode(json);
        const head = latin1(
          `POST /v0/fetch HTTP/1.1\r\nHost: ${OWN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        );
        const request = new Uint8Array(head.length + body.length);
        request.set(head);
        request.set(body, head.length);
        const { raw, decisions, fetches } = await drive([request]);
        const status = Number(raw.slice(9, 12));
        expect(decisions).toHaveLength(1);
        expect(fetches).toBeLessThanOrEqual(1);
        const code = /\r\nX-Verdict: ([^\r]*)\r\n/.exec(raw)?.[1] ?? "";
        expect(KNOWN_CODES.has(code), raw.slice(0, 200)).toBe(true);
        if (status === 200) expect(code).toBe("served");
        else expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({ verdict: "refused", code });
      }),
      { seed: SEED, numRuns: 400 },
    );
  });
});

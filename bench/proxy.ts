/**
 * Throughput of the proxy's hot paths (run: `npx tsx bench/proxy.ts`). Prints requests per
 * second and per-request cost for decide(), the head parser, and a whole request through
 * handle() with an in-memory connection and a fake upstream.
 */
import { utf8 } from "../src/bytes";
import { createEventLog } from "../src/log";
import { DEFAULT_POLICY, decide } from "../src/policy";
import { createProxy, parseRequestHead } from "../src/proxy";
import { memoryConnection, recordedFetch } from "../src/proxy/testing/memory";

interface Row {
  what: string;
  ops: number;
  perOpUs: number;
}

async function measure(what: string, iterations: number, body: (i: number) => unknown | Promise<unknown>): Promise<Row> {
  for (let i = 0; i < Math.min(200, iterations); i++) await body(i); // warm-up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await body(i);
  const ms = performance.now() - start;
  return { what, ops: Math.round((iterations / ms) * 1000), perOpUs: (ms * 1000) / iterations };
}

const urls = [
  "https://api.github.com/repos/torvalds/linux",
  "https://pastebin.com/raw/x",
  "https://2130706433/",
  "https://api.github.com/repos/%2e%2e/user",
];
const head = utf8(
  "GET https://api.github.com/repos/a/b HTTP/1.1\r\nHost: api.github.com\r\nUser-Agent: curl/8\r\nAccept: */*\r\nAuthorization: Bearer x\r\n\r\n",
);

const proxy = createProxy({
  policy: () => DEFAULT_POLICY,
  fetch: recordedFetch(() => new Response("ok", { headers: { "content-length": "2" } })),
  clock: Date.now,
  log: createEventLog({ capacity: 1000 }),
  ownHost: "10.0.2.2:3128",
});

async function oneRequest(): Promise<void> {
  const client = memoryConnection();
  const done = proxy.handle(client.server);
  await client.send(head);
  void client.end();
  await client.readToEnd();
  await done;
}

const rows = [
  await measure("decide() (4 URLs in turn)", 200_000, (i) => decide(DEFAULT_POLICY, { method: "GET", url: urls[i % urls.length]! })),
  await measure("parseRequestHead() (5 headers)", 100_000, () => parseRequestHead(head)),
  await measure("handle(): one request, fake fetch", 5_000, oneRequest),
];

const pad = (s: string, n: number) => s.padEnd(n);
console.log(`${pad("what", 36)}${pad("req/s", 12)}µs/req`);
for (const row of rows) console.log(`${pad(row.what, 36)}${pad(String(row.ops), 12)}${row.perOpUs.toFixed(2)}`);

import { expect, test } from "@playwright/test";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, runInGuest } from "./support/guest";

// Real guest programs hold TCP conversations with the page over the in-page
// TCP/IP peer (src/net), and every frame is accounted for in the Wire panel.
test.describe.configure({ mode: "serial" });

const TEST_PORT = 7777;
const EIGHT_MB = 8 * 1024 * 1024;

let pg: Playground;
test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  pg = await openPlayground(browser);
  // A small HTTP responder on the page side of the wire, for this test only: PUT answers the
  // sha256 of the body it received; GET /blob/N answers N deterministic bytes.
  await pg.page.evaluate((port) => {
    const network = window.__tab?.network;
    if (!network) throw new Error("no network");
    const pattern = (n: number) => {
      const out = new Uint8Array(n);
      let x = 0x12345678;
      for (let i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        out[i] = x & 0xff;
      }
      return out;
    };
    const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (v) => v.toString(16).padStart(2, "0")).join("");
    network.peer.listen(port, (stream) => {
      void (async () => {
        const reader = stream.readable.getReader();
        const writer = stream.writable.getWriter();
        let buf = new Uint8Array(0);
        const append = (chunk: Uint8Array) => {
          const next = new Uint8Array(buf.length + chunk.length);
          next.set(buf);
          next.set(chunk, buf.length);
          buf = next;
        };
        let headEnd = -1;
        while (headEnd < 0) {
          const { done, value } = await reader.read();
          if (done) return;
          append(value);
          headEnd = new TextDecoder().decode(buf).indexOf("\r\n\r\n");
        }
        const head = new TextDecoder().decode(buf.subarray(0, headEnd));
        const [method, path] = head.split(" ");
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        let body = buf.subarray(headEnd + 4);
        const parts: Uint8Array[] = [body];
        let got = body.length;
        while (got < length) {
          const { done, value } = await reader.read();
          if (done) break;
          parts.push(value);
          got += value.length;
        }
        body = new Uint8Array(got);
        let o = 0;
        for (const p of parts) {
          body.set(p, o);
          o += p.length;
        }
        let reply: Uint8Array;
        if (method === "PUT") reply = new TextEncoder().encode(`${hex(await crypto.subtle.digest("SHA-256", body))}\n`);
        else reply = pattern(Number(/\/blob\/(\d+)/.exec(path ?? "")?.[1] ?? 16));
        await writer.write(new TextEncoder().encode(`HTTP/1.1 200 OK\r\nContent-Length: ${reply.length}\r\nConnection: close\r\n\r\n`));
        for (let i = 0; i < reply.length; i += 65536) await writer.write(reply.subarray(i, i + 65536));
        await writer.close();
      })().catch((e) => console.log(`responder: ${e}`));
    });
  }, TEST_PORT);
});
test.afterAll(async () => {
  await closePlayground(pg);
});

test("ping 10.0.2.2 is answered by the page", async () => {
  const { output, status } = await runInGuest(pg.page, "ping -c 2 -W 3 10.0.2.2");
  expect(status).toBe(0);
  expect(output).toMatch(/2 packets transmitted, 2 packets received/);
  const icmp = await pg.page.evaluate(() => window.__tab?.log.ofKind("wire.frame").filter((e) => e.proto === "icmp").length ?? 0);
  expect(icmp).toBeGreaterThanOrEqual(4);
});

test("nslookup example.com 10.0.2.2 is visible on the Wire panel and answered REFUSED (verdict table, row 7)", async () => {
  const { output } = await runInGuest(pg.page, "nslookup example.com 10.0.2.2 2>&1");
  expect(output).toMatch(/REFUSED/);
  const page = pg.page;
  await page.locator('[data-tab="wire"]').click();
  await expect(page.locator("#panel-wire tbody tr").filter({ hasText: "example.com" }).first()).toBeVisible();
  const dns = await page.evaluate(() => window.__tab?.log.ofKind("wire.dns").map((e) => `${e.name} ${e.answer}`));
  expect(dns?.some((d) => d.startsWith("example.com") && /REFUSED/.test(d))).toBe(true);
});

test("a connect to 10.0.2.2:9 is refused at once (RST: no route out of the tab)", async () => {
  const { output } = await runInGuest(pg.page, "tcpconnect 10.0.2.2 9");
  expect(output).toMatch(/result=ECONNREFUSED/);
  const verdicts = await pg.page.evaluate(() => window.__tab?.log.ofKind("wire.verdict").map((e) => `${e.code} ${e.target}`));
  expect(verdicts?.some((v) => v.startsWith("no-route") && v.includes(":9"))).toBe(true);
});

test("8 MB guest→page over real TCP arrives intact (sha256 compared)", async () => {
  test.setTimeout(300_000);
  await runInGuest(pg.page, `head -c ${EIGHT_MB} /dev/urandom > /tmp/up.bin`);
  const local = (await runInGuest(pg.page, "sha256sum /tmp/up.bin")).output.trim().split(/\s+/)[0];
  const { output } = await runInGuest(pg.page, `curl -sS --noproxy '*' -T /tmp/up.bin http://10.0.2.2:${TEST_PORT}/upload`, 240_000);
  expect(local).toMatch(/^[0-9a-f]{64}$/);
  expect(output.trim()).toBe(local);
});

test("8 MB page→guest over real TCP arrives intact (sha256 compared)", async () => {
  test.setTimeout(300_000);
  const { status } = await runInGuest(
    pg.page,
    `curl -sS --noproxy '*' -o /tmp/down.bin http://10.0.2.2:${TEST_PORT}/blob/${EIGHT_MB}`,
    240_000,
  );
  expect(status).toBe(0);
  const guestSum = (await runInGuest(pg.page, "sha256sum /tmp/down.bin")).output.trim().split(/\s+/)[0];
  const pageSum = await pg.page.evaluate(async (n) => {
    const out = new Uint8Array(n);
    let x = 0x12345678;
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = x & 0xff;
    }
    return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", out)), (v) => v.toString(16).padStart(2, "0")).join("");
  }, EIGHT_MB);
  expect(guestSum).toBe(pageSum);
  await runInGuest(pg.page, "rm -f /tmp/up.bin /tmp/down.bin");
});

test("32 concurrent guest connections all complete", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const { output } = await runInGuest(
    pg.page,
    `for i in $(seq 32); do curl -sS --noproxy '*' -o /tmp/c$i http://10.0.2.2:${TEST_PORT}/blob/2000 & done; wait; ls /tmp/c* | wc -l; cat /tmp/c* | wc -c`,
    150_000,
  );
  const [files, bytes] = output.trim().split(/\s+/).map(Number);
  expect(files).toBe(32);
  expect(bytes).toBe(32 * 2000);
});

test("the Wire panel counts frames and shows connection open/close with byte counts", async () => {
  const page = pg.page;
  await page.locator('[data-tab="wire"]').click();
  await expect(page.locator("#panel-wire tbody tr").filter({ hasText: "close" }).first()).toBeVisible();
  const counters = await page.evaluate(() => window.__tab?.network?.peer.counters);
  expect(counters).toBeTruthy();
});

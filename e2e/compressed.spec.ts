import { createServer, type Server } from "node:https";
import { gzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { chromiumLaunchOptions } from "./support/browsers";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, runInGuest } from "./support/guest";
import { createTestCa } from "./support/test-ca";

// `curl --compressed` in the guest (guest/README.md, "curl"): real servers gzip, and docs and
// agents pass --compressed. A local HTTPS server stands in for api.github.com and answers
// gzip-encoded bytes with `Content-Encoding: gzip`, over the browser's real network stack (not
// Playwright routing: a routed answer's body reaches fetch() as it was given, still gzip).
// The browser reaches it by name through Chromium's host-resolver rules and accepts its
// certificate only because this file's browser is started with --ignore-certificate-errors (the
// guest's TLS is the page's, untouched by that); every other name resolves nowhere. The page's
// fetch() decodes the body and its proxy strips the header, so the guest gets the plain body
// either way. Inside the guest, curl inflates a gzip body itself (built with zlib): a
// guest-local server shows it. One boot for the file.
test.describe.configure({ mode: "serial" });

const SAYING = `Compressed upstream, plain guest. ${"Design for failure. ".repeat(40)}`.trim();
const UPSTREAM_PORT = Number(process.env.TAB_E2E_PORT ?? 4399) + 1000;
const launch = chromiumLaunchOptions();
test.use({
  launchOptions: {
    ...launch,
    args: [
      ...launch.args,
      `--host-resolver-rules=MAP api.github.com:443 127.0.0.1:${UPSTREAM_PORT}, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1`,
      "--ignore-certificate-errors",
    ],
  },
});

let pg: Playground;
let upstream: Server;
const requests: { path: string; acceptEncoding: string }[] = [];
test.beforeAll(async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const { certPem, keyPem } = createTestCa().issue(["api.github.com"]);
  const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "*", "access-control-expose-headers": "*" };
  upstream = createServer({ cert: certPem, key: keyPem }, (request, response) => {
    if (request.method === "OPTIONS") return void response.writeHead(204, cors).end();
    requests.push({ path: request.url ?? "", acceptEncoding: String(request.headers["accept-encoding"] ?? "") });
    if (request.url !== "/zen") return void response.writeHead(404, cors).end();
    response.writeHead(200, { ...cors, "content-type": "text/plain", "content-encoding": "gzip" }).end(gzipSync(SAYING));
  });
  await new Promise<void>((resolve) => upstream.listen(UPSTREAM_PORT, "127.0.0.1", resolve));
  pg = await openPlayground(browser);
});
test.afterAll(async () => {
  await closePlayground(pg);
  await new Promise((resolve) => upstream?.close(resolve));
});

test("curl --compressed through the page's HTTPS tunnel prints a gzip-encoded upstream body decoded", async () => {
  const { output, status } = await runInGuest(pg.page, "curl -sS --compressed https://api.github.com/zen");
  expect(status, output).toBe(0);
  expect(output.trim()).toBe(SAYING);
  // The upstream was asked for gzip (by the page's fetch()) and answered it.
  expect(requests.at(-1)).toEqual({ path: "/zen", acceptEncoding: expect.stringContaining("gzip") });
});

test("the guest is sent the decoded body without a Content-Encoding, so curl without --compressed prints it too", async () => {
  const head = await runInGuest(pg.page, "curl -sS --compressed -o /dev/null -D - https://api.github.com/zen");
  expect(head.status, head.output).toBe(0);
  expect(head.output).toMatch(/^HTTP\/1\.1 200/m);
  expect(head.output).not.toMatch(/^content-encoding:/im);
  const plain = await runInGuest(pg.page, "curl -sS https://api.github.com/zen");
  expect(plain.output.trim()).toBe(SAYING);
});

test("curl --compressed with absolute-form http:// through the proxy gets the same decoded body", async () => {
  const { output, status } = await runInGuest(pg.page, "curl -sS --compressed -x http://10.0.2.2:3128 http://api.github.com/zen");
  expect(status, output).toBe(0);
  expect(output.trim()).toBe(SAYING);
});

test("curl --compressed inflates a gzip body itself: a server in the guest answers Content-Encoding: gzip", async () => {
  // busybox httpd serves FILE.gz, marked Content-Encoding: gzip, to a client that accepts gzip.
  const setup = await runInGuest(
    pg.page,
    "mkdir -p /tmp/www && echo plain > /tmp/www/z.txt && echo 'inflated by curl' | gzip -c > /tmp/www/z.txt.gz && httpd -p 127.0.0.1:8081 -h /tmp/www",
  );
  expect(setup.status, setup.output).toBe(0);
  const head = await runInGuest(pg.page, "curl -sS --compressed --noproxy '*' -o /dev/null -D - http://127.0.0.1:8081/z.txt");
  expect(head.output).toMatch(/^content-encoding: gzip/im);
  const body = await runInGuest(pg.page, "curl -sS --compressed --noproxy '*' http://127.0.0.1:8081/z.txt");
  expect(body.status, body.output).toBe(0);
  expect(body.output.trim()).toBe("inflated by curl");
  const raw = await runInGuest(pg.page, "curl -sS --noproxy '*' http://127.0.0.1:8081/z.txt; killall httpd");
  expect(raw.output.trim()).toBe("plain");
});

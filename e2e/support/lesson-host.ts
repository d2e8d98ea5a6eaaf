import { createHash, X509Certificate } from "node:crypto";
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createTestCa } from "./test-ca";

/**
 * A docs author's lesson host for one test: HTTPS with a certificate for a public-looking name
 * (`lessons.docs.test`), CORS on every answer, serving the given files. The browser reaches it
 * by Chromium's host-resolver rule and trusts exactly this certificate's key (its SPKI hash),
 * not every certificate: `chromiumArgs`.
 */
export interface LessonHost {
  /** `https://lessons.docs.test/` */
  origin: string;
  /** Every path asked for, in order. */
  requests: string[];
  chromiumArgs: string[];
  close(): Promise<void>;
}

export const LESSON_HOST = "lessons.docs.test";

export async function startLessonHost(files: Record<string, string>): Promise<LessonHost> {
  const ca = createTestCa();
  const leaf = ca.issue([LESSON_HOST]);
  const requests: string[] = [];
  const server = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, (request, response) => {
    const path = request.url ?? "/";
    requests.push(path);
    const cors = { "access-control-allow-origin": "*" };
    const body = files[path];
    if (body === undefined) {
      response.writeHead(404, { ...cors, "content-type": "text/plain" });
      response.end("not here\n");
      return;
    }
    response.writeHead(200, { ...cors, "content-type": "text/yaml; charset=utf-8" });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const spki = (pem: string) =>
    createHash("sha256")
      .update(new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" }))
      .digest("base64");
  return {
    origin: `https://${LESSON_HOST}/`,
    requests,
    chromiumArgs: [
      `--host-resolver-rules=MAP ${LESSON_HOST}:443 127.0.0.1:${port}`,
      `--ignore-certificate-errors-spki-list=${spki(leaf.certPem)}`,
    ],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A plain HTTP server for a docs page on another site (another loopback name than the playground's). */
export async function serveDocsPage(html: string): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { server, port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

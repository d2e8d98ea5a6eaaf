import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createSecureContext } from "node:tls";
import type { TestCa } from "./test-ca";

/**
 * A local HTTPS upstream with NO CORS headers (a browser's fetch() cannot read it), choosing
 * its certificate by SNI: each name in `certificates` gets the certificate issued for the
 * names listed (a name mapped to another name's certificate is how a test serves a
 * certificate for the wrong host). Routes: /ok 200, /moved 302 to /ok, /away 302 to
 * https://elsewhere.test/x; `answers` by path first, when given; anything else 404. Every
 * request is remembered.
 */
export interface HttpsUpstream {
  server: Server;
  port: number;
  requests: { host: string; method: string; path: string }[];
  close(): Promise<void>;
}

/** A fixed answer for one path. */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export async function startHttpsUpstream(
  ca: TestCa,
  certificates: Record<string, string[]>,
  listen: { host: string; port: number },
  answers: Record<string, UpstreamAnswer> = {},
): Promise<HttpsUpstream> {
  const contexts = new Map(
    Object.entries(certificates).map(([sni, names]) => {
      const { certPem, keyPem } = ca.issue(names);
      return [sni, createSecureContext({ cert: certPem, key: keyPem })] as const;
    }),
  );
  const fallback = contexts.values().next().value;
  const requests: HttpsUpstream["requests"] = [];
  const server = createServer({ SNICallback: (name, done) => done(null, contexts.get(name) ?? fallback) }, (request, response) => {
    const path = request.url ?? "/";
    requests.push({ host: request.headers.host ?? "", method: request.method ?? "", path });
    const answer = answers[path];
    if (answer) {
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    } else if (path === "/ok") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`ok from ${request.headers.host} over the relay\n`);
    } else if (path === "/moved") {
      response.writeHead(302, { location: "/ok", "content-length": "0" });
      response.end();
    } else if (path === "/away") {
      response.writeHead(302, { location: "https://elsewhere.test/x", "content-length": "0" });
      response.end();
    } else {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not here\n");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

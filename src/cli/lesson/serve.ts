import { createReadStream, realpathSync, statSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { extname, isAbsolute, relative, resolve, sep } from "node:path";

/** Files a lesson folder serves, by extension: lessons, their Markdown, the publish record. */
const TYPES: Record<string, string> = {
  ".yaml": "text/yaml; charset=utf-8",
  ".yml": "text/yaml; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".json": "application/json",
  ".html": "text/html; charset=utf-8",
};

/** What every answer carries: a lesson is read by the playground's fetch() from another origin. */
const CORS = { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, HEAD", "access-control-max-age": "600" };

export interface LessonServer {
  server: Server;
  port: number;
  /** The paths asked for, in order (what an author sees scroll by). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves a lesson folder the way a lesson host must (docs/lessons.md, "Publish a lesson"): with
 * CORS, over HTTPS when given a certificate, only files inside the folder and only lesson
 * kinds. For an author trying a lesson before publishing it, never a production server.
 */
export async function serveLessonFolder(o: {
  dir: string;
  port: number;
  host?: string;
  tls?: { cert: string; key: string };
}): Promise<LessonServer> {
  const root = realpathSync(resolve(o.dir));
  const requests: string[] = [];
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    requests.push(path);
    if (request.method === "OPTIONS") return void response.writeHead(204, CORS).end();
    if (request.method !== "GET" && request.method !== "HEAD") return void response.writeHead(405, CORS).end();
    const file = fileIn(root, path);
    const type = file === null ? undefined : TYPES[extname(file).toLowerCase()];
    if (file === null || type === undefined)
      return void response.writeHead(404, { ...CORS, "content-type": "text/plain" }).end("not here\n");
    response.writeHead(200, { ...CORS, "content-type": type, "cache-control": "no-cache" });
    if (request.method === "HEAD") return void response.end();
    createReadStream(file).pipe(response);
  };
  const server = o.tls ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, answer) : createHttpServer(answer);
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(o.port, o.host ?? "127.0.0.1", () => done());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** The regular file a request path names inside `root` (links resolved, never outside), or null. */
function fileIn(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  const path = resolve(root, `.${sep}${decoded}`);
  try {
    if (!statSync(path).isFile()) return null;
    const real = realpathSync(path);
    const rel = relative(root, real);
    return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel) ? real : null;
  } catch {
    return null;
  }
}

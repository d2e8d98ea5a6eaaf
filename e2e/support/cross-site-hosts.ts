import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import type { Duplex } from "node:stream";

/**
 * What an engine besides Chromium needs to see a docs page embed the playground from another
 * site, without Chromium's `--host-resolver-rules` or Playwright's request routing:
 *
 * - `startNameProxy`: the browser's HTTPS proxy, which lets it reach only the names given
 *   (a CONNECT to `lessons.docs.test:443` is tunnelled to the lesson host's loopback port) and
 *   answers every other request 403, so the browser never reaches the internet;
 * - `servePlaygroundSite`: the built playground as a deployment serves it, on its own site
 *   (`http://localhost:PORT/`, another site than the docs page's 127.0.0.1), with its
 *   `tab.config.json` naming the lesson host as a trusted origin.
 */
export interface Running {
  port: number;
  close(): Promise<void>;
}

export async function startNameProxy(routes: Record<string, number>): Promise<Running> {
  const server = createServer((_request, response) => {
    response.writeHead(403, { "content-type": "text/plain" }).end("this test proxy only tunnels its own names\n");
  });
  // A tunnel is no longer the HTTP server's once CONNECT hands it over: `closeAllConnections`
  // does not end it, and `close` waited on WebKit's tunnels after the browser had quit (the
  // suite's end held for minutes, measured), so `close` ends each itself.
  const tunnels = new Set<Duplex>();
  const track = (end: Duplex) => {
    tunnels.add(end);
    end.once("close", () => tunnels.delete(end));
  };
  server.on("connect", (request, socket, head) => {
    track(socket);
    const port = routes[request.url ?? ""];
    if (port === undefined) {
      socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    const upstream = connect(port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    const drop = () => {
      upstream.destroy();
      socket.destroy();
    };
    track(upstream);
    upstream.on("error", drop);
    socket.on("error", drop);
  });
  const running = await listening(server);
  return {
    ...running,
    close: () => {
      for (const end of tunnels) end.destroy();
      return running.close();
    },
  };
}

/** The playground built for the suite (at `baseURL`), served on `localhost` with this deployment config. */
export async function servePlaygroundSite(baseURL: string, config: unknown): Promise<Running & { origin: string }> {
  const configBody = Buffer.from(JSON.stringify(config));
  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      if (path === "/tab.config.json") {
        response.writeHead(200, { "content-type": "application/json", "content-length": configBody.length, "cache-control": "no-cache" });
        response.end(configBody);
        return;
      }
      const answer = await fetch(new URL(request.url ?? "/", baseURL), { method: request.method ?? "GET" });
      const body = Buffer.from(await answer.arrayBuffer());
      response.writeHead(answer.status, {
        "content-type": answer.headers.get("content-type") ?? "application/octet-stream",
        "content-length": body.length,
        "cache-control": "no-cache",
      });
      response.end(body);
    })().catch((error: unknown) => {
      response.writeHead(502).end(String(error));
    });
  });
  const running = await listening(server);
  return { ...running, origin: `http://localhost:${running.port}` };
}

async function listening(server: Server): Promise<Running> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

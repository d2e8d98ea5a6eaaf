#!/usr/bin/env node
// A small static file server for the built page (the e2e suite and "how to publish"):
//   node scripts/serve-static.mjs DIR PORT [BASE]
// serves DIR at http://127.0.0.1:PORT/BASE (BASE defaults to "/"), like any static host.
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve } from "node:path";

const [dir = "dist", portText = "4399", baseText = "/"] = process.argv.slice(2);
const root = resolve(dir);
const base = `/${baseText.replace(/^\/+|\/+$/g, "")}/`.replace("//", "/");
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".yaml": "text/yaml",
  ".md": "text/markdown",
};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (!url.pathname.startsWith(base)) {
    res.writeHead(404).end("not under the base path\n");
    return;
  }
  let path = normalize(join(root, decodeURIComponent(url.pathname.slice(base.length))));
  if (!path.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  if (existsSync(path) && statSync(path).isDirectory()) path = join(path, "index.html");
  if (!existsSync(path) || !statSync(path).isFile()) {
    res.writeHead(404).end("not found\n");
    return;
  }
  res.writeHead(200, {
    "Content-Type": types[extname(path)] ?? "application/octet-stream",
    "Content-Length": statSync(path).size,
    "Cache-Control": "no-cache",
  });
  createReadStream(path).pipe(res);
});
server.listen(Number(portText), "127.0.0.1", () => {
  console.log(`serving ${root} at http://127.0.0.1:${portText}${base}`);
});

#!/usr/bin/env node
// A small static file server for the built page (the e2e suite and "how to publish"):
//   node scripts/serve-static.mjs DIR PORT [BASE]
// serves DIR at http://127.0.0.1:PORT/BASE (BASE defaults to "/"), like any static host.
import { createReadStream, fstatSync, realpathSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, isAbsolute, join, relative, resolve, sep } from "node:path";

const [dir = "dist", portText = "4399", baseText = "/"] = process.argv.slice(2);
const root = resolve(dir);
const realRoot = realpathSync(root);
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

/**
 * The file a request path names inside the served folder, or null when it names none: a
 * malformed escape, a NUL, a path that leaves the folder (`..`, a sibling folder whose name
 * starts like this one's, `/x/dist-secret` beside `/x/dist`), or a link out of it.
 */
function fileFor(pathname) {
  let relativePath;
  try {
    relativePath = decodeURIComponent(pathname.slice(base.length));
  } catch {
    return null;
  }
  if (relativePath.includes("\0")) return null;
  let path = resolve(root, `.${sep}${relativePath}`);
  if (!inside(root, path)) return null;
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats?.isDirectory()) path = join(path, "index.html");
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return null;
  // A link inside the folder must not reach a file outside it.
  return inside(realRoot, realpathSync(path)) ? path : null;
}

/** True when `path` is `folder` or below it (path.relative, never a string prefix). */
function inside(folder, path) {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function answer(req, res) {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (!url.pathname.startsWith(base)) {
    res.writeHead(404).end("not under the base path\n");
    return;
  }
  const path = fileFor(url.pathname);
  if (path === null) {
    res.writeHead(404).end("not found\n");
    return;
  }
  const stream = createReadStream(path);
  stream.on("error", () => {
    if (!res.headersSent) res.writeHead(404).end("not found\n");
    else res.destroy();
  });
  stream.on("open", (fd) => {
    res.writeHead(200, {
      "Content-Type": types[extname(path)] ?? "application/octet-stream",
      "Content-Length": fstatSync(fd).size,
      "Cache-Control": "no-cache",
    });
    stream.pipe(res);
  });
}

// Any request path is answered (a 400 at worst); none ends the process.
const server = createServer((req, res) => {
  try {
    answer(req, res);
  } catch {
    if (!res.headersSent) res.writeHead(400).end("bad request\n");
    else res.destroy();
  }
});
server.listen(Number(portText), "127.0.0.1", () => {
  console.log(`serving ${root} at http://127.0.0.1:${portText}${base}`);
});

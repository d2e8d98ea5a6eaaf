import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SCRIPT = resolve(import.meta.dirname, "serve-static.mjs");

/** A port nothing listens on now (the OS's pick, released). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Sends `path` exactly as written (no URL normalising, unlike fetch). */
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

describe("scripts/serve-static.mjs survives any request path and serves only its folder", () => {
  let scratch = "";
  let server: ChildProcess;
  let port = 0;
  let exited = false;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "tab-serve-static-"));
    await mkdir(join(scratch, "site/sub"), { recursive: true });
    await writeFile(join(scratch, "site/index.html"), "the page");
    await writeFile(join(scratch, "site/sub/app.js"), "the app");
    // A sibling folder whose name starts with the served folder's name.
    await mkdir(join(scratch, "site-secret"));
    await writeFile(join(scratch, "site-secret/key.txt"), "sibling secret");
    await writeFile(join(scratch, "outside.txt"), "outside secret");
    await symlink(join(scratch, "outside.txt"), join(scratch, "site/link.txt"));
    port = await freePort();
    server = spawn(process.execPath, [SCRIPT, join(scratch, "site"), String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    server.on("exit", () => {
      exited = true;
    });
    await new Promise<void>((ready, fail) => {
      server.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("serving")) ready();
      });
      server.on("exit", (code) => fail(new Error(`serve-static exited ${code}`)));
    });
  });
  afterAll(async () => {
    server?.kill();
    await rm(scratch, { recursive: true, force: true });
  });

  const HOSTILE = [
    ["a malformed % escape", "/%"],
    ["a truncated escape", "/%E0%A4%A"],
    ["an escape that is not UTF-8", "/%C0%AF"],
    ["an encoded NUL", "/index.html%00.js"],
    ["dot segments", "/../site-secret/key.txt"],
    ["encoded dot segments into a sibling folder that shares the name's prefix", "/..%2fsite-secret%2fkey.txt"],
    ["encoded dot segments to a file beside the folder", "/%2e%2e/outside.txt"],
    ["a doubled slash to an absolute path", "//etc/passwd"],
    ["a link inside the folder to a file outside it", "/link.txt"],
  ] as const;

  for (const [name, path] of HOSTILE)
    it(`answers ${name} with an error status, not a file from outside, and keeps running`, async () => {
      const reply = await get(port, path);
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(reply.body).not.toMatch(/secret/);
      expect(exited).toBe(false);
    });

  it("then still serves a good path, and a folder's index.html", async () => {
    expect(await get(port, "/sub/app.js")).toEqual({ status: 200, body: "the app" });
    expect(await get(port, "/")).toEqual({ status: 200, body: "the page" });
    expect(exited).toBe(false);
  });
});

import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { type CasStore, type CasTable, SHA256_HEX } from "./store";

/** The CLI's default cache directory (overridable with `--cache DIR`). */
export function defaultCacheDir(): string {
  return join(homedir(), ".cache", "linux-in-a-tab", "cas");
}

const isMissing = (error: unknown) => (error as { code?: unknown }).code === "ENOENT";

/**
 * The CLI's store in a directory:
 *   blobs/<aa>/<sha256>        the bytes
 *   entries/<sha256>.json      per-blob metadata
 *   urls/<sha256(url)>.json    the URL index (the URL itself is inside the record)
 *   tmp/                       partial writes, renamed into place when complete
 * Every write goes to tmp/ first and is renamed: a reader never sees a half-written file.
 */
export function createDirStore(dir: string): CasStore {
  const blobPath = (sha256: string) => {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256 key: ${sha256.slice(0, 80)}`);
    return join(dir, "blobs", sha256.slice(0, 2), sha256);
  };
  const recordPath = (table: CasTable, key: string) =>
    table === "entries"
      ? join(dir, "entries", `${key.replace(/[^0-9a-f]/g, "_")}.json`)
      : join(dir, "urls", `${createHash("sha256").update(key).digest("hex")}.json`);

  async function atomicWrite(path: string, data: Uint8Array | string): Promise<void> {
    const tmpDir = join(dir, "tmp");
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, `${process.pid}-${randomBytes(8).toString("hex")}`);
    try {
      await writeFile(tmp, data);
      await mkdir(join(path, ".."), { recursive: true });
      await rename(tmp, path);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async function readOrNull(path: string): Promise<Buffer | null> {
    try {
      return await readFile(path);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async function listDir(path: string): Promise<string[]> {
    try {
      return await readdir(path);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  return {
    label: `directory ${dir}`,
    async getBlob(sha256) {
      if (!SHA256_HEX.test(sha256)) return null;
      const data = await readOrNull(blobPath(sha256));
      return data === null ? null : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    },
    async putBlob(sha256, bytes) {
      await atomicWrite(blobPath(sha256), bytes);
    },
    async deleteBlob(sha256) {
      if (SHA256_HEX.test(sha256)) await rm(blobPath(sha256), { force: true });
    },
    async listBlobs() {
      const out: string[] = [];
      for (const shard of await listDir(join(dir, "blobs"))) {
        for (const name of await listDir(join(dir, "blobs", shard))) if (SHA256_HEX.test(name)) out.push(name);
      }
      return out;
    },
    async getRecord(table, key) {
      const data = await readOrNull(recordPath(table, key));
      if (data === null) return undefined;
      try {
        return JSON.parse(data.toString("utf8")) as unknown;
      } catch {
        return undefined; // an unreadable record is as good as none; the blob is re-verified anyway
      }
    },
    async putRecord(table, key, value) {
      await atomicWrite(recordPath(table, key), JSON.stringify(value));
    },
    async deleteRecord(table, key) {
      await rm(recordPath(table, key), { force: true });
    },
    async listRecords(table) {
      const out: unknown[] = [];
      for (const name of await listDir(join(dir, table))) {
        const data = await readOrNull(join(dir, table, name));
        if (data === null) continue;
        try {
          out.push(JSON.parse(data.toString("utf8")));
        } catch {
          // skipped: see getRecord
        }
      }
      return out;
    },
    async clear() {
      for (const sub of ["blobs", "entries", "urls", "tmp"]) await rm(join(dir, sub), { recursive: true, force: true });
    },
    locate: (sha256) => blobPath(sha256),
  };
}

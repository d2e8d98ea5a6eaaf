import { lstat, readdir, readFile } from "node:fs/promises";
import type { LocalEntry, LocalFiles } from "./local-files";

const missing = (error: unknown) => ["ENOENT", "ENOTDIR"].includes(String((error as { code?: unknown }).code));

/** The CLI's local files: the real filesystem. Symlinks are reported as such, never followed. */
export function createFsLocalFiles(): LocalFiles {
  return {
    async read(path) {
      try {
        const stat = await lstat(path);
        if (!stat.isFile()) return null;
        const data = await readFile(path);
        return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async list(dir) {
      try {
        const stat = await lstat(dir);
        if (!stat.isDirectory()) return null;
        const entries = await readdir(dir, { withFileTypes: true });
        return entries
          .map(
            (e): LocalEntry => ({
              name: e.name,
              kind: e.isFile() ? "file" : e.isDirectory() ? "directory" : e.isSymbolicLink() ? "symlink" : "other",
            }),
          )
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
  };
}

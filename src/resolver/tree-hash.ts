import { type Sha256, sha256Hex, utf8 } from "../bytes";

/** One file of a directory resource: its path relative to the directory and its sha256. */
export interface TreeFile {
  path: string;
  sha256: string;
}

function compareUtf8(a: string, b: string): number {
  const x = utf8(a);
  const y = utf8(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** A relative path that can appear in a manifest line: no empty, `.` or `..` segment, no newline. */
export function isManifestPath(path: string): boolean {
  if (path === "" || path.startsWith("/") || /[\n\r\u0000]/.test(path)) return false;
  return path.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

/**
 * The directory manifest (the tree hash a directory pin names): one line `relative/path:<sha256>`
 * per file, sorted by UTF-8 bytes, joined with `\n` plus a final `\n`. Its sha256 is the
 * directory's pin, so the manifest itself is stored in the CAS under that pin.
 */
export function treeManifest(files: readonly TreeFile[]): string {
  const lines = files.map((f) => `${f.path}:${f.sha256}`).sort(compareUtf8);
  return `${lines.join("\n")}\n`;
}

export async function treeHash(files: readonly TreeFile[], digest?: Sha256): Promise<string> {
  return sha256Hex(utf8(treeManifest(files)), digest);
}

/** Reads a manifest back (from the cache: re-verified by hash before this is called). */
export function parseTreeManifest(text: string): TreeFile[] | null {
  if (!text.endsWith("\n")) return null;
  const files: TreeFile[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    const at = line.lastIndexOf(":");
    const path = line.slice(0, at);
    const sha256 = line.slice(at + 1);
    if (at < 0 || !/^[0-9a-f]{64}$/.test(sha256) || !isManifestPath(path)) return null;
    files.push({ path, sha256 });
  }
  return files;
}

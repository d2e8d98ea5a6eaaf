import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * Recorded upstream answers, one file per URL, read by the e2e tests' routes and by
 * `npx tab lesson test --recordings DIR`. The layout: `ROOT/HOST/PATH` holds the body (a path
 * ending in `/`, or a directory, is `…/_index`); a query adds `__query=QUERY` to the file's name
 * (with `/` written `%2F`); beside it, `FILE.status` holds the status (default 200) and
 * `FILE.headers.json` the response headers as an object. A status file alone is an answer
 * with an empty body.
 *
 * A recordings folder may come with a lesson someone sent: nothing in it is followed through a
 * symbolic link (a link to ~/.ssh would serve the tester's files to the guest). `lesson test`
 * refuses such a folder up front (symlinksUnder); each read here also checks every part of the
 * path with lstat and answers as if the file were absent when one is a link.
 */
export interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The entry at `path` (a link is not followed), or null when there is none or a part of the path below `root` is a link. */
function plainEntry(root: string, path: string): Stats | null {
  let at = root;
  let stats: Stats | undefined;
  for (const part of relative(root, path)
    .split(sep)
    .filter((p) => p.length > 0)) {
    at = join(at, part);
    stats = lstatSync(at, { throwIfNoEntry: false });
    if (!stats || stats.isSymbolicLink()) return null;
  }
  return stats ?? null;
}

const isPlainFile = (root: string, path: string) => plainEntry(root, path)?.isFile() === true;

/**
 * Every symbolic link in the folder tree at `root`, the root included (lstat, never followed),
 * stopping after `max`: empty when there is none.
 */
export function symlinksUnder(root: string, max = 10): string[] {
  const found: string[] = [];
  const top = lstatSync(root, { throwIfNoEntry: false });
  if (!top) return found;
  if (top.isSymbolicLink()) return [root];
  const queue = top.isDirectory() ? [root] : [];
  while (queue.length > 0 && found.length < max) {
    const dir = queue.shift() as string;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) found.push(path);
      else if (entry.isDirectory()) queue.push(path);
      if (found.length >= max) break;
    }
  }
  return found;
}

/** The recorded answer for a URL under one of `roots` (the first that has it), or null. */
export function recorded(roots: readonly string[], href: string): Recorded | null {
  const url = new URL(href);
  for (const given of roots) {
    const root = resolve(given);
    const base = join(root, url.host, ...url.pathname.split("/").filter((s) => s.length > 0));
    // A path of `..` parts must not leave the recordings.
    const inside = relative(root, base);
    if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) continue;
    const bases = url.pathname.endsWith("/") ? [join(base, "_index")] : [base, join(base, "_index")];
    const candidates = url.search === "" ? bases : bases.map((b) => `${b}__query=${url.search.slice(1).replace(/\//g, "%2F")}`);
    for (const file of candidates) {
      const hasBody = isPlainFile(root, file);
      const hasStatus = isPlainFile(root, `${file}.status`);
      if (!hasBody && !hasStatus) continue;
      const status = hasStatus ? Number(readFileSync(`${file}.status`, "utf8").trim()) : 200;
      const headers = isPlainFile(root, `${file}.headers.json`)
        ? (JSON.parse(readFileSync(`${file}.headers.json`, "utf8")) as Record<string, string>)
        : {};
      return { status, headers, body: hasBody ? readFileSync(file) : Buffer.alloc(0) };
    }
  }
  return null;
}

import { utf8 } from "../bytes";
import type { FetchLike } from "./fetcher";
import { resolveDotSegments } from "./paths";

/** One child of a local directory. Anything but a file or a directory is refused by the resolver. */
export interface LocalEntry {
  name: string;
  kind: "file" | "directory" | "symlink" | "other";
}

/**
 * Local files as the resolver sees them: absolute POSIX paths. The CLI backs this with the
 * filesystem (fs-local-files.node.ts); the page with a bundle served from its own origin
 * (createHttpLocalFiles), which never goes through the https fetch rules.
 */
export interface LocalFiles {
  /** The file's bytes; null when there is no such file. */
  read(path: string): Promise<Uint8Array | null>;
  /** The directory's children; null when there is no such directory. */
  list(dir: string): Promise<LocalEntry[] | null>;
}

/** Children of `dir` implied by a flat list of file paths. */
function childrenOf(paths: Iterable<string>, dir: string): LocalEntry[] | null {
  const prefix = dir === "/" ? "/" : `${resolveDotSegments(dir)}/`;
  const seen = new Map<string, LocalEntry["kind"]>();
  for (const path of paths) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const [name, ...more] = rest.split("/");
    if (!name) continue;
    seen.set(name, more.length > 0 ? "directory" : "file");
  }
  if (seen.size === 0) return null;
  return [...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, kind]) => ({ name, kind }));
}

/** Files held in memory: tests, and a harness pasted or uploaded into the page. */
export function createMemoryLocalFiles(files: Record<string, string | Uint8Array>): LocalFiles {
  const map = new Map<string, Uint8Array>();
  for (const [path, content] of Object.entries(files))
    map.set(resolveDotSegments(path), typeof content === "string" ? utf8(content) : content);
  return {
    async read(path) {
      return map.get(resolveDotSegments(path))?.slice() ?? null;
    },
    async list(dir) {
      return childrenOf(map.keys(), dir);
    },
  };
}

export interface HttpLocalFilesOptions {
  /** The bundle's root URL, ending in `/` (e.g. `new URL("samples/", location.href).href`). */
  root: string;
  fetch: FetchLike;
  /**
   * Every file path in the bundle (HTTP has no directory listing). When absent, `index.json`
   * at the root is read once: `{ "files": ["/.fullsend/harness/demo.yaml", …] }`. A path not
   * listed is absent without a request (a dev server's SPA fallback would answer 200 with HTML).
   */
  files?: readonly string[];
}

/**
 * A bundle on the page's own origin as local files: the page's sample harness under
 * public/samples. Paths map to `root + path`; a path can never climb above the root.
 */
/**
 * Percent-encodes one path segment but keeps the sub-delimiters RFC 3986 allows in a path
 * (`=`, `:`, `@`, `,`) as they are: recordings are named `…__query=recursive=1`, and some
 * static servers do not decode `%3D` back to `=`.
 */
export function encodePathSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(3D|3A|40|2C)/gi, (escaped) => decodeURIComponent(escaped));
}

export function createHttpLocalFiles(options: HttpLocalFilesOptions): LocalFiles {
  const root = options.root.endsWith("/") ? options.root : `${options.root}/`;
  let listing: Promise<string[]> | null = options.files ? Promise.resolve(options.files.map(resolveDotSegments)) : null;
  const urlOf = (path: string) => {
    const normal = resolveDotSegments(`/${path}`);
    return new URL(normal.slice(1).split("/").map(encodePathSegment).join("/"), root).href;
  };
  async function loadListing(): Promise<string[]> {
    const response = await options.fetch(new URL("index.json", root).href, { credentials: "same-origin" });
    if (response.status !== 200) throw new Error(`bundle index ${root}index.json answered ${response.status}`);
    const parsed: unknown = await response.json();
    const files = (parsed as { files?: unknown }).files;
    if (!Array.isArray(files) || !files.every((f) => typeof f === "string")) throw new Error("bundle index.json has no files array");
    return files.map((f: string) => resolveDotSegments(`/${f}`));
  }
  return {
    async read(path) {
      listing ??= loadListing();
      if (!(await listing).includes(resolveDotSegments(`/${path}`))) return null;
      const response = await options.fetch(urlOf(path), { credentials: "same-origin" });
      if (response.status === 404) return null;
      if (response.status !== 200) throw new Error(`bundle file ${path} answered ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    },
    async list(dir) {
      listing ??= loadListing();
      return childrenOf(await listing, resolveDotSegments(`/${dir}`));
    },
  };
}

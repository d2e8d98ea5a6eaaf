/** POSIX path arithmetic for references, with no Node import (the core runs in the page). */

/** Removes `.` and `..` segments and duplicate slashes; `..` above the root stays as `..`. */
export function resolveDotSegments(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(segment);
  }
  return (absolute ? "/" : "") + out.join("/");
}

export function joinPath(dir: string, rel: string): string {
  return resolveDotSegments(`${dir}/${rel}`);
}

export function dirname(path: string): string {
  const normal = resolveDotSegments(path);
  const at = normal.lastIndexOf("/");
  if (at <= 0) return normal.startsWith("/") ? "/" : ".";
  return normal.slice(0, at);
}

export function basename(path: string): string {
  const normal = resolveDotSegments(path);
  return normal.slice(normal.lastIndexOf("/") + 1);
}

/** True when `path` is `dir` itself or below it (both normalized). */
export function isWithin(dir: string, path: string): boolean {
  const d = resolveDotSegments(dir);
  const p = resolveDotSegments(path);
  if (d === "/") return p.startsWith("/");
  return p === d || p.startsWith(`${d}/`);
}

/**
 * The `.fullsend` base of a harness file (relative references resolve against it):
 * the directory holding `harness/` when the file sits in one, else the file's own directory.
 */
export function baseOfHarnessPath(harnessPath: string): string {
  const dir = dirname(harnessPath);
  return basename(dir) === "harness" ? dirname(dir) : dir;
}

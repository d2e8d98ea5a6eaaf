import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";

/**
 * Recorded upstream answers, one file per URL, read by the e2e tests' routes and by
 * `npx tab lesson test --recordings DIR`. The layout: `ROOT/HOST/PATH` holds the body (a path
 * ending in `/`, or a directory, is `…/_index`); a query adds `__query=QUERY` to the file's name
 * (with `/` written `%2F`); beside it, `FILE.status` holds the status (default 200) and
 * `FILE.headers.json` the response headers as an object. A status file alone is an answer
 * with an empty body.
 */
export interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The recorded answer for a URL under one of `roots` (the first that has it), or null. */
export function recorded(roots: readonly string[], href: string): Recorded | null {
  const url = new URL(href);
  for (const given of roots) {
    const root = resolve(given);
    const base = join(root, url.host, ...url.pathname.split("/").filter((s) => s.length > 0));
    // A path of `..` parts must not leave the recordings.
    if (base !== root && !base.startsWith(root + sep)) continue;
    const bases = url.pathname.endsWith("/") ? [join(base, "_index")] : [base, join(base, "_index")];
    const candidates = url.search === "" ? bases : bases.map((b) => `${b}__query=${url.search.slice(1).replace(/\//g, "%2F")}`);
    for (const file of candidates) {
      const hasBody = existsSync(file) && statSync(file).isFile();
      const hasStatus = existsSync(`${file}.status`);
      if (!hasBody && !hasStatus) continue;
      const status = hasStatus ? Number(readFileSync(`${file}.status`, "utf8").trim()) : 200;
      const headers = existsSync(`${file}.headers.json`)
        ? (JSON.parse(readFileSync(`${file}.headers.json`, "utf8")) as Record<string, string>)
        : {};
      return { status, headers, body: hasBody ? readFileSync(file) : Buffer.alloc(0) };
    }
  }
  return null;
}

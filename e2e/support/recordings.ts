import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Route } from "@playwright/test";
import { CORS } from "./upstreams";

/** The recordings the page's tests answer remote fetches from (host/path layout, `_index`, `__query=`, `.status`, `.headers.json`). */
export const SKILL_FIXTURES = resolve(import.meta.dirname, "../../src/skills/testing/fixtures");
export const SAMPLE_FIXTURES = resolve(import.meta.dirname, "../../public/samples/fixtures");

export interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The recorded answer for a URL under one of `roots` (the first that has it), or null. */
export function recorded(roots: readonly string[], href: string): Recorded | null {
  const url = new URL(href);
  for (const root of roots) {
    const base = join(root, url.host, ...url.pathname.split("/").filter((s) => s.length > 0));
    if (!base.startsWith(root)) continue;
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

/** A route handler answering from the recordings (404 "no recording" otherwise), CORS preflight included. */
export function answerRecorded(roots: readonly string[]) {
  return async (route: Route): Promise<void> => {
    const request = route.request();
    if (request.method() === "OPTIONS") {
      await route.fulfill({
        status: 204,
        headers: { ...CORS, "access-control-allow-headers": "*", "access-control-allow-methods": "GET" },
      });
      return;
    }
    const found = recorded(roots, request.url());
    if (!found) {
      await route.fulfill({ status: 404, headers: CORS, body: "no recording" });
      return;
    }
    await route.fulfill({ status: found.status, headers: { ...CORS, ...found.headers }, body: found.body });
  };
}

import { resolve } from "node:path";
import type { Route } from "@playwright/test";
import { recorded } from "../../src/cli/recordings";
import { CORS } from "./upstreams";

/** The recordings the page's tests answer remote fetches from (the layout: src/cli/recordings.ts). */
export const SKILL_FIXTURES = resolve(import.meta.dirname, "../../src/skills/testing/fixtures");
export const SAMPLE_FIXTURES = resolve(import.meta.dirname, "../../public/samples/fixtures");

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

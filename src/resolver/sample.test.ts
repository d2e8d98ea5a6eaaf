import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createCas, createMemoryStore } from "../cas";
import { createEventLog } from "../log";
import { createFixtureFetch, createHttpLocalFiles, type FetchLike, fixturePath, readOrgConfig, resolveHarness } from "./index";
import { buildSample } from "./testing/sample";

const ROOT = resolve(import.meta.dirname, "../../public/samples");

/** The page's view of public/samples: its own origin, read through fetch like Vite serves it. */
const originFetch: FetchLike = async (url) => {
  const path = decodeURIComponent(new URL(url).pathname.replace(/^\/samples\//, ""));
  try {
    return new Response((await readFile(join(ROOT, path))) as unknown as BufferSource, { status: 200 });
  } catch {
    return new Response("<!doctype html>", { status: 200 }); // a dev server's SPA fallback
  }
};

describe("the sample harness at public/samples (the page's default harness)", () => {
  it("on disk equals what testing/sample.ts generates (regenerate with write-sample.node.ts)", async () => {
    const sample = await buildSample();
    for (const [path, text] of sample.files) expect(await readFile(join(ROOT, path), "utf8"), path).toBe(text);
  });

  it("resolves in the page's way: a bundle on its own origin as LocalFiles, recordings as fetch, the bundle's config.yaml as org config", async () => {
    const local = createHttpLocalFiles({ root: "http://127.0.0.1:5173/samples/", fetch: originFetch });
    const org = await readOrgConfig(local, "/.fullsend/config.yaml");
    const orgConfig = org.ok ? org.config : null;
    const log = createEventLog();
    const cas = createCas({ store: createMemoryStore(), log });
    const fetch = createFixtureFetch(local, "/fixtures");
    const r = await resolveHarness({
      harness: "/.fullsend/harness/demo.yaml",
      local,
      cas,
      log,
      fetch,
      orgConfig,
    });
    expect(r.error).toBeNull();
    expect(r.resources.map((x) => `${x.field}:${x.verdict.code}`)).toContain("skills[1].dependencies[0]:served");
    const byUrl = await resolveHarness({
      harness: (await buildSample()).remoteHarnessUrl,
      cas,
      log,
      fetch,
      orgConfig,
    });
    expect(byUrl.ok).toBe(true);
    expect(byUrl.resources.find((x) => x.field === "pre_script")?.cache).toBe("miss");
  });
});

describe("the fixtures layout (src/resolver/README.md)", () => {
  it.each([
    ["a plain file", "https://raw.githubusercontent.com/o/r/c/a.md", "raw.githubusercontent.com/o/r/c/a.md"],
    ["a query", "https://api.github.com/repos/o/r/git/trees/c?recursive=1", "api.github.com/repos/o/r/git/trees/c__query=recursive=1"],
    ["a directory URL", "https://x.example/d/", "x.example/d/_index"],
    ["an explicit port", "https://x.example:8443/a", "x.example:8443/a"],
  ])("maps %s", (_, url, path) => {
    expect(fixturePath(url)).toBe(path);
  });

  it("answers with the recorded status and headers, so a recorded redirect is refused like a live one", async () => {
    const { createMemoryLocalFiles, fetchGuarded } = await import("./index");
    const files = createMemoryLocalFiles({
      "/f/x.example/a": "",
      "/f/x.example/a.status": "302\n",
      "/f/x.example/a.headers.json": '{"location":"https://evil.example/"}',
    });
    const out = await fetchGuarded("https://x.example/a", createFixtureFetch(files, "/f"), { maxBytes: 100 });
    expect(out).toMatchObject({ ok: false, verdict: { code: "bad-status", reason: expect.stringContaining("evil.example") } });
  });
});

import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "tab-packed-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Lock {
  packages: Record<
    string,
    {
      version?: string;
      dev?: boolean;
      link?: boolean;
      license?: string;
      dependencies?: Record<string, string>;
      bin?: unknown;
      engines?: unknown;
    }
  >;
}

/**
 * A docs repository's lockfile naming the tarball and, for its dependencies, exactly what this
 * repository's lockfile resolved. Offline, npm's cache holds those tarballs (by integrity) but
 * no registry metadata, so `npm install --offline TARBALL` fails ENOTCACHED; `npm ci --offline`
 * with this lockfile needs no metadata. With a network, a plain `npm install TARBALL` does it.
 */
function docsLockfile(tarball: string): unknown {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as Lock;
  const root = lock.packages[""]!;
  const packages: Lock["packages"] = {
    "": { dependencies: { "linux-in-a-tab": `file:${tarball}` } },
    "node_modules/linux-in-a-tab": {
      version: root.version,
      resolved: `file:${tarball}`,
      license: root.license,
      dependencies: root.dependencies,
      bin: root.bin,
      engines: root.engines,
    } as Lock["packages"][string],
  };
  for (const [path, entry] of Object.entries(lock.packages))
    if (path.startsWith("node_modules/") && !entry.dev && !entry.link) packages[path] = entry;
  return { name: "docs-site", lockfileVersion: 3, requires: true, packages };
}

describe("the CLI installed in another repository", () => {
  it("npm pack's tarball, installed offline into an empty folder, runs `npx tab lesson test lessons/*.yaml` on that folder's lessons", async () => {
    const packed = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: repo, maxBuffer: 64 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    // Only what the CLI needs: no page, no tests, no e2e suite, no docs.
    expect(
      files.filter((f) => f.startsWith("src/page/") || f.endsWith(".test.ts") || f.startsWith("e2e/") || f.startsWith("docs/")),
    ).toEqual([]);
    expect(files).toContain("bin/tab.mjs");
    expect(files).toContain("vendor/guest/state.bin.zst");

    const docs = join(work, "docs-site");
    mkdirSync(join(docs, "lessons"), { recursive: true });
    copyFileSync(join(repo, "lessons", "01-tour.yaml"), join(docs, "lessons", "01-tour.yaml"));
    const tarball = join(work, info!.filename);
    writeFileSync(
      join(docs, "package.json"),
      JSON.stringify({
        name: "docs-site",
        private: true,
        dependencies: { "linux-in-a-tab": `file:${tarball}` },
        // This repository pins commander under wisp-js for Node 20 (its own `overrides`, which a
        // dependency's package.json cannot carry); offline, the docs site takes the same pin so
        // this repository's lockfile answers it. With a network a docs site may leave it out
        // (npm then takes commander 15 and warns on Node 20).
        overrides: (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { overrides?: unknown }).overrides,
      }),
    );
    writeFileSync(join(docs, "package-lock.json"), JSON.stringify(docsLockfile(tarball)));
    await run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: docs });

    const tested = await run("sh", ["-c", "npx --no tab lesson test lessons/*.yaml"], { cwd: docs });
    expect(tested.stdout).toContain("PASS step 1");
    expect(tested.stdout).toContain("all 1 lesson(s) passed");
  }, 300_000);
});

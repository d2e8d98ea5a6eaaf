// The built page's script sizes, as a browser fetches them: shared by bench/bundle.ts (the
// figures) and bench/bundle.test.ts (the first screen's budget). Builds with the project's
// own vite.config.ts into a scratch folder and reads Vite's manifest of the build.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "vite";
import { z } from "zod";

/** The first screen's script budget, gzipped: the entry and what it imports statically. */
export const FIRST_SCREEN_BUDGET_GZIP = 250 * 1000;

export interface FileSize {
  file: string;
  raw: number;
  gzip: number;
}

export interface BundleSizes {
  /** The entry chunk, its static imports and what it imports at once with import() (the playground): what the browser runs before the first screen. */
  firstScreen: FileSize[];
  /** Scripts index.html preloads beside the first screen's (the emulator's): fetched at once, run later. */
  preloaded: FileSize[];
  /** Every other script (loaded with import() or as a worker). */
  later: FileSize[];
  /** Every wasm in the build (v86's, and the relay's TLS client's), for comparison. */
  wasm: FileSize[];
  /** The wasm files index.html preloads beside the first screen (only v86's should be). */
  preloadedWasm: string[];
}

/** One chunk in Vite's build manifest (only the fields read here). */
const ManifestChunk = z.object({
  file: z.string(),
  isEntry: z.boolean().optional(),
  imports: z.array(z.string()).optional(),
  dynamicImports: z.array(z.string()).optional(),
});
const Manifest = z.record(z.string(), ManifestChunk);

const sizeOf = (dir: string, file: string): FileSize => {
  const bytes = readFileSync(join(dir, file));
  return { file, raw: bytes.length, gzip: gzipSync(bytes).length };
};

export const sum = (files: readonly FileSize[], key: "raw" | "gzip"): number => files.reduce((n, f) => n + f[key], 0);

/** Builds the page (production, the repository's Vite config) and measures its scripts. */
export async function measureBundle(): Promise<BundleSizes> {
  const outDir = join(tmpdir(), `tab-bundle-${process.pid}-${Date.now()}`);
  try {
    await build({ logLevel: "error", build: { outDir, emptyOutDir: true, manifest: true } });
    const manifest = Manifest.parse(JSON.parse(readFileSync(join(outDir, ".vite", "manifest.json"), "utf8")));
    const firstScreen = new Set<string>();
    const visit = (key: string) => {
      const chunk = manifest[key];
      if (!chunk || firstScreen.has(chunk.file)) return;
      firstScreen.add(chunk.file);
      for (const next of chunk.imports ?? []) visit(next);
    };
    // The entry (src/page/main.ts) imports the playground with import() at once (an embed: once
    // first seen), so what it imports that way is the first screen's too.
    for (const [key, chunk] of Object.entries(manifest))
      if (chunk.isEntry) {
        visit(key);
        for (const next of chunk.dynamicImports ?? []) visit(next);
      }
    const assets = readdirSync(join(outDir, "assets")).map((name) => `assets/${name}`);
    const scripts = assets.filter((f) => f.endsWith(".js")).map((f) => sizeOf(outDir, f));
    const html = readFileSync(join(outDir, "index.html"), "utf8");
    const preloaded = new Set([...html.matchAll(/<link rel="modulepreload"[^>]*href="\.\/([^"]+)"/g)].map((m) => m[1]));
    const bySize = (a: FileSize, b: FileSize) => b.gzip - a.gzip;
    return {
      firstScreen: scripts.filter((s) => firstScreen.has(s.file)).sort(bySize),
      preloaded: scripts.filter((s) => !firstScreen.has(s.file) && preloaded.has(s.file)).sort(bySize),
      later: scripts.filter((s) => !firstScreen.has(s.file) && !preloaded.has(s.file)).sort(bySize),
      wasm: assets.filter((f) => f.endsWith(".wasm")).map((f) => sizeOf(outDir, f)),
      preloadedWasm: [...html.matchAll(/<link rel="preload"[^>]*href="\.\/([^"]+\.wasm)"/g)].map((m) => m[1] ?? ""),
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

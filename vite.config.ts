import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

// TAB_GUEST_DIR: another image than the committed one, for bench/boot.ts's before-and-after run (BENCH_BEFORE).
const GUEST_DIR = process.env.TAB_GUEST_DIR ?? "vendor/guest";

/**
 * Serves the committed guest image (vendor/guest) at `guest/…` in dev and preview, and copies
 * it into the build, so the page needs nothing but npm. The page checks every file against
 * SHA256SUMS itself.
 */
function guestImage(): Plugin {
  const serve = (req: { url?: string }, res: import("node:http").ServerResponse, next: () => void) => {
    const match = /^\/(?:.*\/)?guest\/([A-Za-z0-9._-]+)(?:\?.*)?$/.exec(req.url ?? "");
    const file = match ? join(GUEST_DIR, match[1] ?? "") : "";
    if (!match || !existsSync(file) || !statSync(file).isFile()) return next();
    res.setHeader("Content-Type", file.endsWith("SHA256SUMS") || file.endsWith("BUILD-INFO") ? "text/plain" : "application/octet-stream");
    res.setHeader("Content-Length", statSync(file).size);
    res.setHeader("Cache-Control", "no-cache");
    createReadStream(file).pipe(res);
  };
  return {
    name: "tab-guest-image",
    configureServer(server) {
      server.middlewares.use(serve);
    },
    configurePreviewServer(server) {
      server.middlewares.use(serve);
    },
    generateBundle() {
      if (!existsSync(GUEST_DIR)) return;
      for (const name of readdirSync(GUEST_DIR)) {
        const path = join(GUEST_DIR, name);
        if (statSync(path).isFile()) this.emitFile({ type: "asset", fileName: `guest/${name}`, source: readFileSync(path) });
      }
    },
  };
}

/**
 * The emulator's script (the guest's start, the image's loader) and v86's wasm are loaded with
 * `import()` and `fetch()`, so the browser would ask for them only once the first screen's
 * script has run. Preload hints in index.html start them beside it instead. The network's
 * script (the proxy, TLS, X.509) is not among them: the page loads it once the machine runs
 * (src/page/emulator/start-guest.ts, prepareNetwork). The hints sit in an inert `<template>`
 * that index.html's first script (src/page/early-state-download.ts) puts in the head unless the
 * page is an embed: an embed not yet seen loads none of this (about 5 MB of memory each on a
 * docs page of embeds; docs/performance.md, "Idle").
 */
function preloadGuestStart(): Plugin {
  const starts = /[\\/]src[\\/]page[\\/]emulator[\\/](start-guest|images)\.ts$/;
  return {
    name: "tab-preload-guest-start",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return [];
        const chunks = new Set<string>();
        const add = (fileName: string) => {
          const chunk = bundle[fileName];
          if (chunk?.type !== "chunk" || chunk.isEntry || chunks.has(fileName)) return;
          chunks.add(fileName);
          for (const next of chunk.imports) add(next);
        };
        for (const chunk of Object.values(bundle))
          if (chunk.type === "chunk" && starts.test(chunk.facadeModuleId ?? "")) add(chunk.fileName);
        // v86's wasm only: the relay's TLS client has a wasm of its own, loaded on its first use.
        const wasm = Object.values(bundle).filter((file) => file.type === "asset" && /(^|\/)v86-[^/]*\.wasm$/.test(file.fileName));
        const hints = [
          ...[...chunks].map((file) => ({
            tag: "link",
            attrs: { rel: "modulepreload", crossorigin: "", href: `./${file}` },
          })),
          // index.html's first script fetches v86's wasm (src/page/early-state-download.ts): a CORS-mode `fetch` preload is the request it reuses.
          ...wasm.map((file) => ({
            tag: "link",
            attrs: { rel: "preload", as: "fetch", crossorigin: "anonymous", href: `./${file.fileName}` },
          })),
        ];
        return [{ tag: "template", attrs: { id: "guest-start-hints" }, children: hints, injectTo: "head" as const }];
      },
    },
  };
}

/**
 * The page's first script (src/page/early-state-download.ts: the emulator's worker, v86's wasm,
 * a first visit's early downloads) is written into index.html itself, in dev and in the build:
 * as a script file it would wait for its own response, which shares the link with the page's
 * larger scripts (and Vite would bundle it into the entry chunk, the largest). Inline it runs as
 * soon as the page is parsed. It imports only types, so stripping them is all it needs; in the
 * build the worker's and the wasm's addresses are filled in (in dev the page starts the worker,
 * which fetches its wasm).
 */
function inlineEarlyStart(): Plugin {
  const file = "src/page/early-state-download.ts";
  const fill = (code: string, name: string, value: string | undefined): string => {
    const slot = `const ${name} = "";`;
    if (!code.includes(slot)) throw new Error(`${file} has no ${slot} to fill in`);
    return value === undefined ? code : code.replace(slot, `const ${name} = ${JSON.stringify(`./${value}`)};`);
  };
  return {
    name: "tab-inline-early-start",
    transformIndexHtml: {
      order: "post",
      async handler(html, ctx) {
        const ts = (await import("typescript")).default;
        const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
          compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: true },
        });
        const built = (pattern: RegExp): string | undefined => {
          if (!ctx.bundle) return undefined;
          const found = Object.values(ctx.bundle).find((f) => pattern.test(f.fileName));
          if (!found) throw new Error(`the build has no ${pattern} for index.html's first script`);
          return found.fileName;
        };
        const code = fill(
          fill(outputText, "MACHINE_WORKER", built(/(^|\/)machine-worker-[^/]*\.js$/)),
          "EMULATOR_WASM",
          built(/(^|\/)v86-[^/]*\.wasm$/),
        );
        // Before the page's first module script: module scripts run in document order.
        const first = html.indexOf('<script type="module"');
        if (first < 0) throw new Error("index.html has no module script to run the early download before");
        return `${html.slice(0, first)}<script type="module">${code.trim()}</script>\n    ${html.slice(first)}`;
      },
    },
  };
}

/**
 * The core's modules and the `yaml` package run nothing when imported (they define schemas,
 * classes and functions), but neither says so, so a folder's index.ts that re-exports a YAML
 * reader (src/policy/index.ts) would pull the parser into the first screen's script. Declared
 * here, it loads with its first use (docs/architecture.md, "The page's script"). CSS and the
 * page's own modules keep their side effects, and so does src/tls/reflect-polyfill.ts: the
 * X.509 library needs the polyfill installed before it loads.
 */
const CORE_TREESHAKE = {
  moduleSideEffects: [
    { test: /[\\/]node_modules[\\/]yaml[\\/]/, sideEffects: false },
    {
      test: /[\\/]src[\\/](bytes|cas|console|kms|log|machine|model|net|policy|proxy|resolver|runner|skills)[\\/][^/\\]+\.ts$/,
      sideEffects: false,
    },
    // src/tls too, but for the module that installs reflect-metadata for the X.509 library.
    { test: /[\\/]src[\\/]tls[\\/](?!reflect-polyfill\.ts$)[^/\\]+\.ts$/, sideEffects: false },
  ],
};

// `base: "./"` makes the static build work from any host and under any sub-path.
export default defineConfig({
  base: "./",
  publicDir: "public",
  plugins: [guestImage(), preloadGuestStart(), inlineEarlyStart()],
  build: {
    target: "es2022",
    outDir: "dist",
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      treeshake: CORE_TREESHAKE,
    },
  },
  server: { host: "127.0.0.1", port: 5173, strictPort: false },
  preview: { host: "127.0.0.1", port: 4173, strictPort: false },
  // The emulator's worker is built apart; the same declaration keeps zod and the log's schemas,
  // which it never uses, out of the script every first visit parses before the guest restores.
  worker: { format: "es", rolldownOptions: { treeshake: CORE_TREESHAKE } },
  test: {
    include: ["src/**/*.test.ts", "bench/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    pool: "threads",
  },
});

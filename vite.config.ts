import { defineConfig } from "vitest/config";

// `base: "./"` makes the static build work from any host and under any sub-path.
export default defineConfig({
  base: "./",
  publicDir: "public",
  build: {
    target: "es2022",
    outDir: "dist",
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 4096,
  },
  server: { host: "127.0.0.1", port: 5173, strictPort: false },
  preview: { host: "127.0.0.1", port: 4173, strictPort: false },
  worker: { format: "es" },
  test: {
    include: ["src/**/*.test.ts", "bench/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    pool: "threads",
  },
});

// bench/bundle: the page's script as a first visit fetches it. Builds the site and
// prints, gzipped and raw, the first screen's script (the entry chunk and its static imports:
// what runs before the shell shows) against the 250 kB goal, the emulator's chunks index.html
// preloads beside it, what loads after it with import() (the services, the features), the
// total, and v86's wasm.
import { FIRST_SCREEN_BUDGET_GZIP, type FileSize, measureBundle, sum } from "./_bundle";

const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;

const sizes = await measureBundle();
const row = (label: string, files: readonly FileSize[]) =>
  console.log(
    `${label.padEnd(44)} ${String(files.length).padStart(5)} ${kB(sum(files, "raw")).padStart(11)} ${kB(sum(files, "gzip")).padStart(11)}`,
  );

console.log(`${"".padEnd(44)} ${"files".padStart(5)} ${"raw".padStart(11)} ${"gzip".padStart(11)}`);
row("first screen (entry + static imports)", sizes.firstScreen);
row("preloaded beside it (the emulator)", sizes.preloaded);
row("loaded after it (services, features)", sizes.later);
row("all scripts", [...sizes.firstScreen, ...sizes.preloaded, ...sizes.later]);
row("wasm (v86 preloaded beside the guest image; the relay client on use)", sizes.wasm);
console.log("\nlargest chunks after the first screen's (gzip):");
for (const f of [...sizes.preloaded, ...sizes.later].sort((a, b) => b.gzip - a.gzip).slice(0, 6))
  console.log(`  ${f.file.padEnd(42)} ${kB(f.gzip).padStart(11)}`);
const first = sum(sizes.firstScreen, "gzip");
const verdict = first <= FIRST_SCREEN_BUDGET_GZIP ? "within" : "OVER";
console.log(
  `\nfirst screen: ${kB(first)} gzipped, ${verdict} the goal of ${kB(FIRST_SCREEN_BUDGET_GZIP)} (${((100 * first) / FIRST_SCREEN_BUDGET_GZIP).toFixed(0)}%)`,
);

// bench/markdown: how long the lesson Markdown reader (src/lessons/markdown.ts, markdown-it)
// takes on hostile text at 8, 16, 32 and 64 KiB (64 KiB is MARKDOWN_MAX_CHARS, the most one
// lesson text is read as Markdown). Linear means each column about doubles the one before (64/32 ≈ 2); the
// last column is the worst a lesson text can cost. The reader is timed as the page runs it:
// markdown-it's parse and the walk to the lesson's tree.
import { MARKDOWN_MAX_CHARS, parseLessonMarkdown } from "../src/lessons";
import { HOSTILE_MARKDOWN } from "../src/lessons/testing/hostile-markdown";
import { median, table } from "./_browser";

const SIZES_KIB = [8, 16, 32, 64];
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function timeOnce(text: string): number {
  const start = performance.now();
  parseLessonMarkdown(text);
  return performance.now() - start;
}

parseLessonMarkdown("warm *the* `reader` up"); // the reader is made on first use
const rows: (string | number)[][] = [["input", ...SIZES_KIB.map((k) => `${k} KiB ms`), "64/32"]];
let worst = { name: "", ms: 0 };
for (const [name, make] of Object.entries(HOSTILE_MARKDOWN)) {
  const times = SIZES_KIB.map((kib) => {
    const text = make(Math.min(kib * 1024, MARKDOWN_MAX_CHARS));
    return median(Array.from({ length: RUNS }, () => timeOnce(text)));
  });
  const last = times[times.length - 1]!;
  if (last > worst.ms) worst = { name, ms: last };
  rows.push([name, ...times.map((t) => t.toFixed(1)), (last / Math.max(times[times.length - 2]!, 0.05)).toFixed(1)]);
}
console.log(table(rows));
console.log(
  `\nworst at the cap (${MARKDOWN_MAX_CHARS} characters): ${worst.ms.toFixed(1)} ms (${worst.name}); linear is 64/32 ≈ 2, quadratic ≈ 4 (where both are above the clock's noise)`,
);

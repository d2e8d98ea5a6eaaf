// bench/policy-logs: `policy replay` and `policy learn` over a 100,000-line log of each format
// the CLI reads (this log's JSON lines, half of them frames a replay skips; smokescreen's
// CANONICAL-PROXY-DECISION lines), read as the CLI reads them: streamed from a file, line by
// line. Prints lines per second; the goal is 100,000 lines in under 2 s. The page runs the same
// core on the File's stream (not measured here).
import { createReadStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toJsonLine } from "../src/log";
import { DEFAULT_POLICY } from "../src/policy";
import { learnPolicy, readLogLineChunks, replayLog } from "../src/policy-tools";
import { decisionLine } from "../src/policy-tools/testing/decisions";
import { median, table } from "./_browser";

const LINES = Number(process.env.BENCH_LOG_LINES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function ours(): string {
  let text = "";
  for (let i = 0; i < LINES; i++)
    text +=
      i % 2 === 0
        ? toJsonLine(decisionLine(i, { target: `https://h${i % 500}.example.com/repos/${i % 97}/items/${i}` }))
        : toJsonLine({ kind: "wire.frame", seq: i, time: i, dir: "in", proto: "tcp", summary: "ACK", bytes: 54 });
  return text;
}

function smokescreen(): string {
  let text = "";
  for (let i = 0; i < LINES; i++)
    text += `${JSON.stringify({
      time: "2026-09-22T10:00:00Z",
      level: "INFO",
      msg: "CANONICAL-PROXY-DECISION",
      allow: i % 3 !== 0,
      decision_reason: i % 3 === 0 ? "rule has enforce policy" : "host matched allowed domain in rule",
      enforce_would_deny: i % 3 === 0,
      id: `c${i}`,
      proxy_type: "connect",
      requested_host: `h${i % 500}.example.com:443`,
      role: "bench",
    })}\n`;
  return text;
}

async function timed(path: string, use: (lines: Awaited<ReturnType<typeof readLogLineChunks>>) => void): Promise<number> {
  const start = performance.now();
  const read = await readLogLineChunks(createReadStream(path, { encoding: "utf8" }) as AsyncIterable<string>);
  if (!read.ok) throw new Error(`the bench log did not read: ${read.errors[0]?.message}`);
  use(read);
  return (performance.now() - start) / 1000;
}

const dir = await mkdtemp(join(tmpdir(), "bench-policy-logs-"));
try {
  const rows: (string | number)[][] = [["format", "lines", "replay s", "replay lines/s", "learn s", "learn lines/s"]];
  for (const [name, make] of [
    ["tab (GET /v0/log)", ours],
    ["smokescreen", smokescreen],
  ] as const) {
    const path = join(dir, `${name.split(" ")[0]}.jsonl`);
    await writeFile(path, make());
    const replay: number[] = [];
    const learn: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      replay.push(await timed(path, (read) => read.ok && replayLog(DEFAULT_POLICY, read.lines)));
      learn.push(await timed(path, (read) => read.ok && learnPolicy(read.lines)));
    }
    const r = median(replay);
    const l = median(learn);
    rows.push([name, LINES, r.toFixed(2), Math.round(LINES / r), l.toFixed(2), Math.round(LINES / l)]);
  }
  console.log(table(rows));
} finally {
  await rm(dir, { recursive: true, force: true });
}

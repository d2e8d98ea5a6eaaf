// bench/policy-logs: `policy replay` and `policy learn` over a 100,000-line log of each format
// read (this log's JSON lines, half of them frames a replay skips; smokescreen's
// CANONICAL-PROXY-DECISION lines; gh-aw-firewall's audit.jsonl; OpenShell's OCSF JSON lines),
// in the CLI and in the page. The CLI reads as `npx tab policy` does: streamed from a file, line
// by line. The page is the built site in headless Chromium: the log is dropped on the Replay
// panel as a File (its stream read line by line) and timed until its rows are shown, then "Draft
// a policy from this log" is pressed; the page's learn figure is drop to draft shown (the draft
// needs the read). Prints lines per second; the goal is 100,000 lines in under 2 s.
// BENCH_PAGE=0 skips the page.
import { createReadStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toJsonLine } from "../src/log";
import { DEFAULT_POLICY } from "../src/policy";
import { learnPolicy, POLICY_FORMATS, readLogLineChunks, replayLog } from "../src/policy-tools";
import { decisionLine } from "../src/policy-tools/testing/decisions";
import { median, startBenchPage, table } from "./_browser";

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

function awf(): string {
  let text = "";
  for (let i = 0; i < LINES; i++) {
    const host = `h${i % 500}.example.com:443`;
    const denied = i % 3 === 0;
    const record =
      i % 2 === 0
        ? { _schema: "audit/v0.26.0", timestamp: new Date(1779699600000 + i).toISOString(), event: "http_access" }
        : { ts: 1761074374.646 + i / 1000 };
    text += `${JSON.stringify({
      ...record,
      client: "172.30.0.20",
      host,
      dest: denied ? "-:-" : "140.82.112.3:443",
      method: "CONNECT",
      status: denied ? 403 : 200,
      decision: denied ? "TCP_DENIED" : "TCP_TUNNEL",
      url: host,
    })}\n`;
  }
  return text;
}

function openshell(): string {
  let text = "";
  for (let i = 0; i < LINES; i++) {
    const host = `h${i % 500}.example.com`;
    const denied = i % 3 === 0;
    const http = i % 2 === 0;
    text += `${JSON.stringify({
      class_uid: http ? 4002 : 4001,
      class_name: http ? "HTTP Activity" : "Network Activity",
      activity_id: http ? 99 : 1,
      activity_name: http ? "Other" : "Open",
      time: 1775014132118 + i,
      message: http
        ? `L7_REQUEST ${denied ? "deny" : "allow"} GET ${host}:443/repos/${i % 97} reason=`
        : `CONNECT ${denied ? "denied" : "allowed"} ${host}:443`,
      metadata: { version: "1.8.0" },
      action_id: denied ? 2 : 1,
      action: denied ? "Denied" : "Allowed",
      disposition_id: denied ? 2 : 1,
      disposition: denied ? "Blocked" : "Allowed",
      ...(http
        ? { http_request: { http_method: "GET", url: { scheme: "http", hostname: host, path: `/repos/${i % 97}/items/${i}`, port: 443 } } }
        : {}),
      dst_endpoint: { domain: host, port: 443 },
      firewall_rule: { name: denied ? "-" : "bench", type: http ? "l7" : "opa" },
    })}\n`;
  }
  return text;
}

async function timed(path: string, use: (lines: Awaited<ReturnType<typeof readLogLineChunks>>) => void): Promise<number> {
  const start = performance.now();
  const read = await readLogLineChunks(createReadStream(path, { encoding: "utf8" }) as AsyncIterable<string>);
  if (!read.ok) throw new Error(`the bench log did not read: ${read.errors[0]?.message}`);
  use(read);
  return (performance.now() - start) / 1000;
}

const FORMATS = [
  ["tab (GET /v0/log)", ours],
  ["smokescreen", smokescreen],
  ["gh-aw-firewall", awf],
  ["OpenShell", openshell],
] as const;

interface PageTimes {
  replay: number;
  learn: number;
}

/**
 * The page's figures: each log dropped on the Replay panel (a File, as a reader drops one) and
 * timed until its summary and rows are shown and a frame has passed; then the draft.
 */
async function pageTimes(files: Map<string, string>): Promise<Map<string, PageTimes>> {
  const bench = await startBenchPage(Number(process.env.TAB_BENCH_PORT ?? 4496));
  const out = new Map<string, PageTimes>();
  try {
    const context = await bench.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    // The logs are served to the page from the files, not passed through the driver.
    await page.route("**/bench-log/*", (route) =>
      route.fulfill({ path: files.get(decodeURIComponent(route.request().url().split("/").pop()!))! }),
    );
    page.on("pageerror", (error) => console.error(`[page error] ${error.message}`));
    await page.goto(bench.url);
    await page.waitForFunction(() => window.__tab?.guestReady.then(() => true), undefined, { timeout: 300_000 });
    await page.waitForFunction(() => window.__tab?.featuresReady.then(() => true), undefined, { timeout: 300_000 });
    await page.locator('[data-tab="replay"]').click();
    for (const name of files.keys()) {
      console.error(`page: ${name}…`);
      const replay: number[] = [];
      const learn: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const times = await page.evaluate(async (file) => {
          const blob = await (await fetch(`/bench-log/${encodeURIComponent(file)}`)).blob();
          const input = document.querySelector('[data-testid="log-replay-input"]')!;
          const summary = document.querySelector('[data-testid="log-replay-summary"]')!;
          const draft = document.querySelector<HTMLButtonElement>('[data-testid="log-replay-draft"]')!;
          const shown = new Promise<void>((resolve) => {
            const observer = new MutationObserver(() => {
              if (/re-decided|not replayed/.test(summary.textContent ?? "")) {
                observer.disconnect();
                resolve();
              }
            });
            observer.observe(summary, { childList: true, characterData: true, subtree: true });
          });
          const transfer = new DataTransfer();
          transfer.items.add(new File([blob], file));
          const start = performance.now();
          input.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
          await shown;
          // A frame, so the rows' layout is counted. (No named function here: tsx would wrap it in a helper the page lacks.)
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
          const replayed = performance.now();
          if (/not replayed/.test(summary.textContent ?? "")) throw new Error(summary.textContent ?? "");
          draft.click();
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
          const drafted = performance.now();
          return { replay: (replayed - start) / 1000, learn: (drafted - start) / 1000 };
        }, name);
        replay.push(times.replay);
        learn.push(times.learn);
      }
      out.set(name, { replay: median(replay), learn: median(learn) });
    }
  } finally {
    await bench.stop();
  }
  return out;
}

const dir = await mkdtemp(join(tmpdir(), "bench-policy-logs-"));
try {
  const rows: (string | number)[][] = [
    ["format", "lines", "CLI replay s", "lines/s", "CLI learn s", "lines/s", "page replay s", "lines/s", "page learn s", "lines/s"],
  ];
  const files = new Map<string, string>();
  const cli = new Map<string, { replay: number; learn: number }>();
  for (const [name, make] of FORMATS) {
    const file = `${name.split(" ")[0]}.jsonl`;
    const path = join(dir, file);
    await writeFile(path, make());
    files.set(file, path);
    const replay: number[] = [];
    const learn: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      replay.push(await timed(path, (read) => read.ok && replayLog(DEFAULT_POLICY, read.lines)));
      // As `npx tab policy learn` does: the draft, written in the log's own format.
      learn.push(
        await timed(path, (read) => {
          if (!read.ok) return;
          const learned = learnPolicy(read.lines);
          if (read.format) POLICY_FORMATS[read.format]!.export(learned.policy, {});
        }),
      );
    }
    cli.set(file, { replay: median(replay), learn: median(learn) });
  }
  console.error("CLI done; the page…");
  const inPage = process.env.BENCH_PAGE === "0" ? new Map<string, PageTimes>() : await pageTimes(files);
  const rate = (s: number | undefined) => (s === undefined ? ["-", "-"] : [s.toFixed(2), Math.round(LINES / s)]);
  for (const [name] of FORMATS) {
    const file = `${name.split(" ")[0]}.jsonl`;
    const c = cli.get(file)!;
    const p = inPage.get(file);
    rows.push([name, LINES, ...rate(c.replay), ...rate(c.learn), ...rate(p?.replay), ...rate(p?.learn)]);
  }
  console.log(table(rows));
} finally {
  await rm(dir, { recursive: true, force: true });
}

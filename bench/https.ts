// bench/https: the guest's `curl https://api.github.com/zen` through the page (proxy CONNECT,
// the page's TLS terminator, the page's fetch()) against `curl http://…/zen` over v86's own
// fetch network backend, the same request in the same run on the same guest image. The
// figures are curl's own `-w` timers in the guest (the guest's clock follows real time: v86
// derives its TSC from performance.now()). Several runs, interleaved; median; ratio (goal
// HTTPS ≤ 2× HTTP). Then, in the same run, one first visit against a cold boot (bench/_visits.ts).
//
//
// Both upstreams are one local server on 127.0.0.1 answering the same bytes, over HTTPS (a
// certificate for api.github.com from a throwaway test CA) and over HTTP. The browser reaches
// it by name through Chromium's host-resolver rules, and accepts its certificate only because
// this benchmark's browser is started with --ignore-certificate-errors; the guest's TLS is the
// page's and is not touched by that. Not Playwright routes: a routed request waits on the test
// process, which while a guest runs took 0.05–1.2 s per request and drowned what is measured.
// Nothing leaves the machine: every other name resolves nowhere.
//
// The ratio depends on how long the upstream takes, so it is measured twice: with the local
// server answering at once (the page's and the guest's own overhead only), and with it
// answering after BENCH_UPSTREAM_DELAY_MS (default 200 ms: the issue's plain-HTTP request to the
// real api.github.com took 0.19–0.31 s in all).
//
// For the HTTPS request curl's timers mean: time_connect = TCP to the proxy (10.0.2.2:3128);
// time_appconnect = that + CONNECT answered + the TLS handshake; time_total = + the request.
// Over the fetch backend there is no TLS: time_appconnect is 0.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page } from "@playwright/test";
import { runInGuest, waitForGuest } from "../e2e/support/guest";
import { createTestCa } from "../e2e/support/test-ca";
import { median, snapshotSettled, startBenchPage, table } from "./_browser";
import { firstVisitRatio, measureVisits, type Visits } from "./_visits";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PAGE_PORT = Number(process.env.BENCH_PORT ?? 4497);
const DELAYS = [0, Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 200)];
const HOST = "api.github.com";
const BODY = "Design for failure.\n";
const TIMERS = "%{http_code} %{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total}";

interface Timing {
  connect: number;
  appconnect: number;
  starttransfer: number;
  total: number;
  /** Guest instructions the whole command took (v86's counter), curl's start-up included. */
  instructions: number;
  /** Whether v86's JIT was compiling when the command ended (src/page/emulator/jit-governor.ts). */
  jit: boolean;
}

interface Guest {
  name: string;
  page: Page;
  context: BrowserContext;
  command: string;
}

/** The one upstream both guests reach: the same answer over http:// and https://, after `delay.ms`. */
async function startUpstream(delay: { ms: number }): Promise<{ http: number; https: number; close(): void }> {
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "*", "access-control-allow-methods": "GET" };
    if (request.url !== "/zen") return void response.writeHead(404, cors).end();
    if (request.method === "OPTIONS") return void response.writeHead(204, cors).end();
    setTimeout(() => response.writeHead(200, { ...cors, "content-type": "text/plain" }).end(BODY), delay.ms);
  };
  const { certPem, keyPem } = createTestCa().issue([HOST]);
  const servers: Server[] = [createHttpServer(answer), createHttpsServer({ cert: certPem, key: keyPem }, answer)];
  const ports = await Promise.all(
    servers.map(
      (server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))),
    ),
  );
  return {
    http: ports[0]!,
    https: ports[1]!,
    close: () => {
      for (const server of servers) server.close();
    },
  };
}

async function openGuest(bench: { browser: import("@playwright/test").Browser; url: string }, name: string, query: string): Promise<Guest> {
  const context = await bench.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  page.on("pageerror", (error) => console.log(`[${name} page error] ${error.message}`));
  const t0 = performance.now();
  await page.goto(`${bench.url}${query}`);
  await waitForGuest(page);
  console.log(`${name}: guest ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { name, page, context, command: "" };
}

async function guestRun(page: Page, command: string): Promise<string> {
  const { output, status } = await runInGuest(page, command, 120_000);
  if (status !== 0) throw new Error(`guest command failed (${status}): ${command}\n${output}`);
  return output.trim();
}

/** v86's count of instructions the guest executed (32 bits, wraps); idle time (HLT) adds none. */
const instructionCounter = (page: Page) =>
  page.evaluate(() => {
    const guest = window.__tab?.guest;
    if (!guest) throw new Error("no guest");
    return guest.instructions();
  });

async function measure(guest: Guest): Promise<Timing> {
  const before = await instructionCounter(guest.page);
  const out = await guestRun(guest.page, guest.command);
  const instructions = ((await instructionCounter(guest.page)) - before) >>> 0;
  const jit = await guest.page.evaluate(async () => (await window.__tab?.guest?.jit())?.enabled ?? false);
  const [code, connect, appconnect, starttransfer, total] = out.split(/\s+/);
  if (code !== "200") throw new Error(`${guest.name}: ${out}`);
  return {
    connect: Number(connect),
    appconnect: Number(appconnect),
    starttransfer: Number(starttransfer),
    total: Number(total),
    instructions,
    jit,
  };
}

async function main(): Promise<void> {
  const delay = { ms: 0 };
  const upstream = await startUpstream(delay);
  const rules = [
    `MAP ${HOST}:443 127.0.0.1:${upstream.https}`,
    `MAP ${HOST}:80 127.0.0.1:${upstream.http}`,
    "MAP * ~NOTFOUND",
    "EXCLUDE 127.0.0.1",
  ];
  const bench = await startBenchPage(PAGE_PORT, [`--host-resolver-rules=${rules.join(", ")}`, "--ignore-certificate-errors"]);
  const guests: Guest[] = [];
  const results: { delayMs: number; tls: Timing[]; plain: Timing[] }[] = [];
  let visits: Visits | null = null;
  let keepAlive: KeepAlive | null = null;
  try {
    const tls = await openGuest(bench, "HTTPS via the page", "");
    await snapshotSettled(tls.page);
    tls.command = `curl -sS -o /dev/null -w '${TIMERS}' https://${HOST}/zen`;
    const plain = await openGuest(bench, "HTTP via v86 fetch", "?net=v86-fetch");
    plain.command = `curl -sS --noproxy '*' -H 'Host: ${HOST}' -o /dev/null -w '${TIMERS}' http://10.0.2.2/zen`;
    guests.push(tls, plain);

    // Once, untimed: both answer the upstream's bytes (and curl is in the guest's page cache).
    const seen = await guestRun(tls.page, `curl -sS https://${HOST}/zen`);
    const seenPlain = await guestRun(plain.page, `curl -sS --noproxy '*' -H 'Host: ${HOST}' http://10.0.2.2/zen`);
    if (seen !== BODY.trim() || seenPlain !== BODY.trim()) throw new Error(`unexpected answers: ${seen} / ${seenPlain}`);
    // Warm-up, untimed: the emulator's JIT has compiled curl's common paths in both guests.
    for (let run = 0; run < 3; run++) for (const guest of guests) await measure(guest);

    for (const delayMs of DELAYS) {
      delay.ms = delayMs;
      const result = { delayMs, tls: [] as Timing[], plain: [] as Timing[] };
      results.push(result);
      // Interleaved, so a slow moment on the shared machine hits both alike.
      for (let run = 1; run <= RUNS; run++) {
        result.tls.push(await measure(tls));
        result.plain.push(await measure(plain));
        const last = (t: Timing[]) => t.at(-1)?.total.toFixed(3);
        console.log(`upstream delay ${delayMs} ms, run ${run}/${RUNS}: HTTPS ${last(result.tls)} s; HTTP ${last(result.plain)} s`);
      }
    }
    delay.ms = 0;
    keepAlive = await measureKeepAlive(tls, plain);
    const sessions = await tls.page.evaluate(() =>
      window.__tab?.log
        .ofKind("tls.session")
        .filter((e) => e.phase === "established")
        .map((e) => ({ helloRetry: e.helloRetry === true, resumed: e.resumed === true, pskMode: e.pskMode })),
    );
    console.log(
      `page TLS sessions established: ${sessions?.length}, with a HelloRetryRequest: ${sessions?.filter((s) => s.helloRetry).length}, resumed from a ticket: ${sessions?.filter((s) => s.resumed).length} (psk_ke, no key exchange: ${sessions?.filter((s) => s.pskMode === "psk_ke").length})`,
    );
    // The other half of the issue's side-by-side figures, in the same run: a first visit
    // against a cold boot (bench/boot.ts gives several rounds), with the two guests gone.
    for (const guest of guests.splice(0)) await guest.context.close();
    visits = await measureVisits(bench.browser, bench.url);
  } finally {
    for (const guest of guests) await guest.context.close().catch(() => undefined);
    await bench.stop().catch((error: Error) => console.log(`stopping the preview server: ${error.message}`));
    upstream.close();
  }
  for (const result of results) report(result);
  if (keepAlive) reportKeepAlive(keepAlive);
  if (visits) {
    console.log(
      `\nvisits, one round: first visit (shipped state) to its first command ${visits.first} ms, cold boot to its first prompt ${visits.cold} ms, returning visit ${visits.returning} ms`,
    );
    console.log(firstVisitRatio(visits.first, visits.cold));
  }
}

/**
 * An agent making many requests: BATCH GETs as BATCH curl processes (a process, a connection
 * and a TLS handshake each) against one curl process given the BATCH URLs, which keeps one
 * connection (through the page: one CONNECT tunnel, one TLS session) alive for all of them,
 * and against tab-keep asked BATCH times, as the agent's fetch steps ask it (one small
 * process a request, one kept connection).
 * Timed in the guest from /proc/uptime (10 ms steps; the guest's clock follows real time), the
 * upstream answering at once. Also checks how many connections the one process opened.
 */
const BATCH = Number(process.env.BENCH_BATCH ?? 10);
const BATCH_ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? 3);
type KeepAlive = Record<"httpsEach" | "httpsOne" | "httpsKeep" | "httpEach" | "httpOne", number[]> & {
  connects: { https: string; http: string; keep: string };
};

async function measureKeepAlive(tls: Guest, plain: Guest): Promise<KeepAlive> {
  const httpsUrl = `https://${HOST}/zen`;
  const httpArgs = `--noproxy '*' -H 'Host: ${HOST}'`;
  const httpUrl = "http://10.0.2.2/zen";
  const each = (args: string, url: string) => `for i in $(seq ${BATCH}); do curl -sS ${args} -o /dev/null ${url} || exit 1; done`;
  const one = (args: string, url: string) =>
    `curl -sS ${args} -w '%{num_connects} ' ${Array.from({ length: BATCH }, () => `-o /dev/null ${url}`).join(" ")}`;
  const timed = async (guest: Guest, command: string) => {
    const out = await guestRun(guest.page, `a=$(cut -d' ' -f1 /proc/uptime); ${command}; echo; echo $a $(cut -d' ' -f1 /proc/uptime)`);
    const [a, b] = (out.split("\n").at(-1) ?? "").split(" ").map(Number);
    return { perSecond: BATCH / ((b as number) - (a as number)), printed: out.split("\n")[0] ?? "" };
  };
  // What the agent's fetch steps do: one `tab-keep --ask` process a request, one tab-keep
  // (one libcurl handle, its connection kept) serving them all.
  await guestRun(tls.page, "rm -f /tmp/bench-keep && mkfifo /tmp/bench-keep && { tab-keep /tmp/bench-keep > /dev/null 2>&1 & }");
  const keep = `for i in $(seq ${BATCH}); do k=$(tab-keep --ask /tmp/bench-keep GET ${httpsUrl} /tmp/bench-keep.out '' '' '' 0 60); case $k in 'exit=0 status=200 '*) ;; *) echo "$k"; exit 1 ;; esac; k=\${k#* connects=}; printf '%s ' "\${k%% *}"; done`;
  const result: KeepAlive = {
    httpsEach: [],
    httpsOne: [],
    httpsKeep: [],
    httpEach: [],
    httpOne: [],
    connects: { https: "", http: "", keep: "" },
  };
  for (let round = 1; round <= BATCH_ROUNDS; round++) {
    result.httpsEach.push((await timed(tls, each("", httpsUrl))).perSecond);
    const httpsOne = await timed(tls, one("", httpsUrl));
    result.httpsOne.push(httpsOne.perSecond);
    result.connects.https = httpsOne.printed.trim();
    const httpsKeep = await timed(tls, keep);
    result.httpsKeep.push(httpsKeep.perSecond);
    result.connects.keep = httpsKeep.printed.trim();
    result.httpEach.push((await timed(plain, each(httpArgs, httpUrl))).perSecond);
    const httpOne = await timed(plain, one(httpArgs, httpUrl));
    result.httpOne.push(httpOne.perSecond);
    result.connects.http = httpOne.printed.trim();
    console.log(`keep-alive round ${round}/${BATCH_ROUNDS} done`);
  }
  return result;
}

function reportKeepAlive(k: KeepAlive): void {
  const rate = (v: number[]) => `${median(v).toFixed(1)} (${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)})`;
  console.log(`\n${BATCH} GETs in a row, upstream at once; requests per second in the guest, median (spread) of ${BATCH_ROUNDS} rounds\n`);
  console.log(
    table([
      ["client", "HTTPS via page", "HTTP via v86 fetch"],
      [`${BATCH} curl processes`, rate(k.httpsEach), rate(k.httpEach)],
      [`one curl process, ${BATCH} URLs`, rate(k.httpsOne), rate(k.httpOne)],
      [`tab-keep, ${BATCH} asks (the agent's steps)`, rate(k.httpsKeep), "—"],
    ]),
  );
  console.log(
    `connections opened, per URL (num_connects): one curl process HTTPS ${k.connects.https}; HTTP ${k.connects.http}; tab-keep ${k.connects.keep}`,
  );
  console.log(
    `tab-keep's HTTPS through the page ÷ plain HTTP over v86's fetch backend: ${(median(k.httpsKeep) / median(k.httpEach)).toFixed(2)}× ${BATCH} curl processes, ${(median(k.httpsKeep) / median(k.httpOne)).toFixed(2)}× one curl process; ÷ ${BATCH} HTTPS curl processes: ${(median(k.httpsKeep) / median(k.httpsEach)).toFixed(2)}×`,
  );
  console.log(
    `one process ÷ ${BATCH} processes: HTTPS ${(median(k.httpsOne) / median(k.httpsEach)).toFixed(2)}×, HTTP ${(median(k.httpOne) / median(k.httpEach)).toFixed(2)}×; HTTPS ÷ HTTP with one process: ${(median(k.httpsOne) / median(k.httpOne)).toFixed(2)}`,
  );
}

function report({ delayMs, tls, plain }: { delayMs: number; tls: Timing[]; plain: Timing[] }): void {
  const ms = (v: number) => (v * 1000).toFixed(0);
  const spread = (v: number[]) => `${ms(Math.min(...v))}–${ms(Math.max(...v))}`;
  const row = (label: string, f: (t: Timing) => number) => {
    const a = tls.map(f);
    const b = plain.map(f);
    return [label, ms(median(a)), spread(a), ms(median(b)), spread(b)];
  };
  console.log(
    `\nupstream answering after ${delayMs} ms; ${RUNS} runs each, interleaved; curl's -w timers in the guest, median and spread in ms\n`,
  );
  console.log(
    table([
      ["timer", "HTTPS via page", "spread", "HTTP via v86 fetch", "spread"],
      row("time_connect", (t) => t.connect),
      row("time_appconnect (CONNECT + TLS)", (t) => t.appconnect),
      row("TLS part (appconnect − connect)", (t) => (t.appconnect > 0 ? t.appconnect - t.connect : 0)),
      row("time_starttransfer", (t) => t.starttransfer),
      row("time_total", (t) => t.total),
    ]),
  );
  const mega = (runs: Timing[]) => median(runs.map((t) => t.instructions)) / 1e6;
  // Instructions do not depend on how busy the machine is; curl's start-up is in both, the
  // TLS client's work only in the first.
  console.log(
    `\nguest instructions per command (v86's counter, median): HTTPS ${mega(tls).toFixed(1)} M, HTTP ${mega(plain).toFixed(1)} M, difference ${(mega(tls) - mega(plain)).toFixed(1)} M`,
  );
  const jitOn = (runs: Timing[]) => runs.filter((t) => t.jit).length;
  console.log(`runs that ended with v86's JIT compiling: HTTPS ${jitOn(tls)} of ${tls.length}, HTTP ${jitOn(plain)} of ${plain.length}`);
  const tlsPart = median(tls.map((t) => t.appconnect - t.connect));
  console.log(`TLS part of a resumed HTTPS request, median: ${ms(tlsPart)} ms (goal ≤ 100 ms on the 2-core test machine)`);
  const ratios = tls.map((t, i) => t.total / plain[i]!.total);
  const totals = (runs: Timing[]) => median(runs.map((t) => t.total));
  console.log(
    `ratio HTTPS ÷ HTTP of time_total, upstream after ${delayMs} ms: ${(totals(tls) / totals(plain)).toFixed(2)} (medians; goal ≤ 2.0), per run ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; HTTPS costs ${ms(totals(tls) - totals(plain))} ms more`,
  );
}

await main();

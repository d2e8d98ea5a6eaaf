// bench/https: the guest's `curl https://api.github.com/zen` through the page (proxy CONNECT,
// the page's TLS terminator, the page's fetch()) against `curl http://…/zen` over v86's own
// fetch network backend, the same request in the same run on the same guest image. The
// figures are curl's own `-w` timers in the guest (the guest's clock follows real time: v86
// derives its TSC from performance.now()). Several runs, interleaved; median; ratio (goal
// HTTPS ≤ 2× HTTP). (Issue 22.)
//
// Both upstreams are this script's Playwright route, answering the same bytes: the page's
// fetch of https://api.github.com/zen and v86's fetch of http://api.github.com/zen (the
// fetch backend takes the host from the Host header the guest sends to 10.0.2.2:80, see
// bench/wire.ts). Nothing leaves the machine: every other request is refused.
//
// For the HTTPS request curl's timers mean: time_connect = TCP to the proxy (10.0.2.2:3128);
// time_appconnect = that + CONNECT answered + the TLS handshake; time_total = + the request.
// Over the fetch backend there is no TLS: time_appconnect is 0.
import type { BrowserContext, Page, Route } from "@playwright/test";
import { runInGuest, waitForGuest } from "../e2e/support/guest";
import { median, startBenchPage, table } from "./_browser";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PAGE_PORT = Number(process.env.BENCH_PORT ?? 4497);
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
}

interface Guest {
  name: string;
  page: Page;
  context: BrowserContext;
  command: string;
  runs: Timing[];
}

/** The one upstream both guests reach: the same answer over http:// and https://. */
async function routeUpstream(context: BrowserContext): Promise<void> {
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort("blockedbyclient"));
  const answer = (route: Route) =>
    route.request().method() === "OPTIONS"
      ? route.fulfill({
          status: 204,
          headers: { "access-control-allow-origin": "*", "access-control-allow-headers": "*", "access-control-allow-methods": "GET" },
        })
      : route.fulfill({ status: 200, headers: { "access-control-allow-origin": "*", "content-type": "text/plain" }, body: BODY });
  await context.route(`https://${HOST}/zen`, answer);
  await context.route(`http://${HOST}/zen`, answer);
}

async function openGuest(bench: { browser: import("@playwright/test").Browser; url: string }, name: string, query: string): Promise<Guest> {
  const context = await bench.browser.newContext({ viewport: { width: 1280, height: 720 } });
  await routeUpstream(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => console.log(`[${name} page error] ${error.message}`));
  const t0 = performance.now();
  await page.goto(`${bench.url}${query}`);
  await waitForGuest(page);
  console.log(`${name}: guest ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { name, page, context, command: "", runs: [] };
}

async function guestRun(page: Page, command: string): Promise<string> {
  const { output, status } = await runInGuest(page, command, 120_000);
  if (status !== 0) throw new Error(`guest command failed (${status}): ${command}\n${output}`);
  return output.trim();
}

/** v86's count of instructions the guest executed (32 bits, wraps); idle time (HLT) adds none. */
const instructionCounter = (page: Page) =>
  page.evaluate(() => {
    const emulator = window.__tab?.guest?.emulator as unknown as { get_instruction_counter(): number } | undefined;
    if (!emulator) throw new Error("no guest");
    return emulator.get_instruction_counter();
  });

async function measure(guest: Guest): Promise<void> {
  const before = await instructionCounter(guest.page);
  const out = await guestRun(guest.page, guest.command);
  const instructions = ((await instructionCounter(guest.page)) - before) >>> 0;
  const [code, connect, appconnect, starttransfer, total] = out.split(/\s+/);
  if (code !== "200") throw new Error(`${guest.name}: ${out}`);
  guest.runs.push({
    connect: Number(connect),
    appconnect: Number(appconnect),
    starttransfer: Number(starttransfer),
    total: Number(total),
    instructions,
  });
}

async function main(): Promise<void> {
  const bench = await startBenchPage(PAGE_PORT);
  const guests: Guest[] = [];
  try {
    const tls = await openGuest(bench, "HTTPS via the page", "");
    // Let the first boot's snapshot save finish, so it does not run during a measurement.
    await tls.page.waitForFunction(
      () => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save" || e.phase === "snapshot-restore"),
      undefined,
      { timeout: 300_000 },
    );
    tls.command = `curl -sS -o /dev/null -w '${TIMERS}' https://${HOST}/zen`;
    const plain = await openGuest(bench, "HTTP via v86 fetch", "?net=v86-fetch");
    plain.command = `curl -sS --noproxy '*' -H 'Host: ${HOST}' -o /dev/null -w '${TIMERS}' http://10.0.2.2/zen`;
    guests.push(tls, plain);

    // Once, untimed: both answer the upstream's bytes (and curl's libraries are in the page cache).
    const seen = await guestRun(tls.page, `curl -sS https://${HOST}/zen`);
    const seenPlain = await guestRun(plain.page, `curl -sS --noproxy '*' -H 'Host: ${HOST}' http://10.0.2.2/zen`);
    if (seen !== BODY.trim() || seenPlain !== BODY.trim()) throw new Error(`unexpected answers: ${seen} / ${seenPlain}`);

    // Interleaved, so a slow moment on the shared machine hits both alike.
    for (let run = 1; run <= RUNS; run++) {
      for (const guest of guests) await measure(guest);
      console.log(`run ${run}/${RUNS}: ${guests.map((g) => `${g.name} ${g.runs.at(-1)?.total.toFixed(3)} s`).join("; ")}`);
    }
    const sessions = await tls.page.evaluate(() =>
      window.__tab?.log
        .ofKind("tls.session")
        .filter((e) => e.phase === "established")
        .map((e) => e.helloRetry),
    );
    console.log(`page TLS sessions established: ${sessions?.length}, with a HelloRetryRequest: ${sessions?.filter(Boolean).length}`);
  } finally {
    for (const guest of guests) await guest.context.close().catch(() => undefined);
    await bench.stop().catch((error: Error) => console.log(`stopping the preview server: ${error.message}`));
  }

  const [tls, plain] = guests as [Guest, Guest];
  const ms = (v: number) => (v * 1000).toFixed(0);
  const pick = (g: Guest, f: (t: Timing) => number) => g.runs.map(f);
  const spread = (v: number[]) => `${ms(Math.min(...v))}–${ms(Math.max(...v))}`;
  const row = (label: string, f: (t: Timing) => number) => {
    const a = pick(tls, f);
    const b = pick(plain, f);
    return [label, ms(median(a)), spread(a), ms(median(b)), spread(b)];
  };
  console.log(`\n${RUNS} runs each, interleaved; curl's -w timers in the guest, median and spread in ms\n`);
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
  const mega = (g: Guest) => median(g.runs.map((t) => t.instructions)) / 1e6;
  // Instructions do not depend on how busy the machine is; curl's start-up (dynamic linking,
  // ~25 M) is in both, the TLS client's work only in the first.
  console.log(
    `\nguest instructions per command (v86's counter, median): HTTPS ${mega(tls).toFixed(1)} M, HTTP ${mega(plain).toFixed(1)} M, difference ${(mega(tls) - mega(plain)).toFixed(1)} M`,
  );
  const ratios = tls.runs.map((t, i) => t.total / plain.runs[i]!.total);
  console.log(
    `\nratio HTTPS ÷ HTTP of time_total: ${(median(pick(tls, (t) => t.total)) / median(pick(plain, (t) => t.total))).toFixed(2)} (medians; goal ≤ 2.0), per run ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
  );
}

await main();

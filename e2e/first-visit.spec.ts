import { readFileSync } from "node:fs";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { machineRecord, parseSha256Sums } from "../src/machine";
import { SNAPSHOT_FLAG } from "../src/page/emulator/snapshot-names";
import { snapshotKey } from "../src/page/emulator/snapshots";
import { BOOT_TIMEOUT_MS, closePlayground, openPlayground, type Playground, runInGuest, terminalRows, waitForGuest } from "./support/guest";
import { routeZen } from "./support/upstreams";
import { keepWarmState, seedWarmState } from "./support/warm-state";

// A first visit restores the shipped post-boot state (vendor/guest/state.bin.zst)
// instead of booting; every restored guest is a fresh machine (its own clock and random seed,
// applied before the first prompt, invisibly); "Boot fresh" still boots the image cold.
test.describe.configure({ mode: "serial" });

interface Visit extends Playground {
  /** Every guest file the page requested. */
  fetched: string[];
}

const visits: Visit[] = [];

/**
 * A browser with empty storage opening the playground: a first visit. `loading` runs before
 * the navigation (`before`) and after it, until the guest is ready (`during`).
 */
async function firstVisit(
  browser: Browser,
  loading?: { before(page: Page): Promise<void>; during(page: Page): Promise<void> },
): Promise<Visit> {
  const fetched: string[] = [];
  const { context, page } = await openPlayground(browser, "./", {
    warm: false,
    refuseUnplanned: true,
    setup: (context) => routeZen(context, "Fresh machines only."),
    beforeLoad: async (page) => {
      page.on("request", (request) => {
        const m = /\/guest\/([^/?#]+)$/.exec(request.url());
        if (m?.[1]) fetched.push(m[1]);
      });
      await loading?.before(page);
    },
    wait: "none",
  });
  await loading?.during(page);
  await waitForGuest(page);
  const visit = { context, page, fetched };
  visits.push(visit);
  return visit;
}

const established = (page: Page) => page.evaluate(() => window.__tab?.log.ofKind("tls.session").find((e) => e.phase === "established"));

const phases = (page: Page) => page.evaluate(() => window.__tab?.log.ofKind("boot.progress").map((e) => e.phase) ?? []);

/**
 * One TLS connection from the guest's curl through the page (the allowed GET of row 1), with
 * curl's key log (SSLKEYLOGFILE): the ClientHello random and the TLS 1.3 secrets the guest
 * derived, and the guest's clock right after.
 */
async function tlsFromGuest(page: Page): Promise<{ randoms: string[]; secrets: string[]; clock: number; body: string }> {
  const { output, status } = await runInGuest(
    page,
    "cd /tmp; rm -f /tmp/keys; SSLKEYLOGFILE=/tmp/keys curl -sS https://api.github.com/zen; echo; cat /tmp/keys; echo clock=$(date +%s); ls sslkeylog.log 2>/dev/null || echo no-stray-key-log; cd",
    BOOT_TIMEOUT_MS, // a TLS handshake in the emulated guest takes a second on an idle host, minutes on a loaded one
  );
  expect(status).toBe(0);
  const lines = output.split("\n");
  const keyLines = lines.map((l) => l.trim().split(" ")).filter((p) => p.length === 3 && /_SECRET(_\d+)?$/.test(p[0] ?? ""));
  // The secrets go only where SSLKEYLOGFILE says: no key log of the TLS library's own in the
  // working directory (guest/README.md, "curl").
  expect(output).toContain("no-stray-key-log");
  return {
    randoms: [...new Set(keyLines.map((p) => p[1] ?? ""))],
    secrets: keyLines.map((p) => p[2] ?? ""),
    clock: Number(/clock=(\d+)/.exec(output)?.[1]),
    body: lines[0] ?? "",
  };
}

test.afterAll(async () => {
  for (const v of visits) await closePlayground(v);
});

/** Chromium's network emulation (CDP): a slower link, so the download lasts long enough to watch. */
async function throttle(page: Page, mbit: number | null): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const throughput = mbit === null ? -1 : (mbit * 1e6) / 8;
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: throughput,
    uploadThroughput: throughput,
  });
}

test("a first visit with empty storage restores the shipped state: no kernel or initramfs download, no boot", async ({
  browser,
  browserName,
}) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  // On a 20 Mbit/s link (Chromium's emulation) the state's download takes seconds: the boot bar
  // says how far it is and how fast it goes while it lasts.
  const { page, fetched } = await firstVisit(
    browser,
    browserName === "chromium"
      ? {
          before: (loading) => throttle(loading, 20),
          async during(loading) {
            const bar = loading.locator(".boot-text");
            await expect
              .poll(() => bar.textContent(), { intervals: [100] })
              .toMatch(/^downloading the shipped guest state: \d+\.\d of \d+\.\d MB, \d+\.\d MB\/s$/);
            await throttle(loading, null);
          },
        }
      : undefined,
  );
  if (browserName === "chromium") {
    // Its download started before the page's script asked for SHA256SUMS (the first visit's early
    // start, src/page/early-state-download.ts), and only once: the page took that response.
    expect(fetched.indexOf("state.bin.zst")).toBeLessThan(fetched.indexOf("SHA256SUMS"));
    expect(fetched.filter((f) => f === "state.bin.zst")).toHaveLength(1);
    const speeds = await page.evaluate(() =>
      (window.__tab?.log.ofKind("boot.progress") ?? []).filter((e) => e.phase === "download").map((e) => e.bytesPerSecond ?? 0),
    );
    expect(speeds.some((s) => s > 0)).toBe(true);
  }
  const seen = await phases(page);
  expect(seen).toContain("snapshot-restore");
  expect(seen).toContain("fresh");
  expect(seen).not.toContain("ready");
  expect(seen).not.toContain("error");
  expect(fetched).toContain("state.bin.zst");
  expect(fetched).not.toContain("bzImage");
  expect(fetched).not.toContain("initramfs.cpio.zst");
  const restored = await page.evaluate(
    () => window.__tab?.log.ofKind("boot.progress").find((e) => e.phase === "snapshot-restore")?.message,
  );
  expect(restored).toMatch(/restored the shipped state \(\d+\.\d MB download/);
  // The page's features load once the restored guest is ready (its prompt, then its network),
  // not during the restore (src/page/emulator/features-may-load.ts); the network's own script
  // (the proxy, TLS, X.509) once the restored guest's first prompt shows, neither beside the
  // first screen's script nor beside the restore (src/page/emulator/start-guest.ts,
  // prepareNetwork).
  const order = await page.evaluate(() => {
    const mark = (name: string) => performance.getEntriesByName(name)[0]?.startTime ?? Number.POSITIVE_INFINITY;
    const requested = (pattern: RegExp) =>
      performance
        .getEntriesByType("resource")
        .filter((r) => pattern.test(r.name))
        .map((r) => r.startTime);
    return {
      prompt: mark("tab:fresh-prompt"),
      ready: mark("tab:guest-ready"),
      mounts: requested(/\/assets\/mount-[^/]*\.js$/),
      network: requested(/\/assets\/network-[^/]*\.js$/),
    };
  });
  expect(order.prompt).toBeLessThan(order.ready);
  expect(order.mounts.length).toBeGreaterThan(5);
  expect(Math.min(...order.mounts)).toBeGreaterThanOrEqual(order.ready);
  expect(order.network).toHaveLength(1);
  expect(order.network[0]).toBeGreaterThanOrEqual(order.prompt);
  // Nothing of the restore, the fresh clock or the seed shows: a fresh prompt and nothing else.
  // Once xterm has painted it (its renderer draws on the next frame).
  await expect.poll(() => terminalRows(page), { timeout: 10_000 }).toEqual(["guest:~#"]);
});

test("two restores of the same shipped state are two fresh machines: different TLS client randoms and keys, a current clock", async ({
  browser,
}) => {
  test.setTimeout(2 * BOOT_TIMEOUT_MS);
  // One emulator at a time: the first visit's guest is done before the second one starts.
  const first = visits.shift() ?? (await firstVisit(browser));
  const a = await tlsFromGuest(first.page);
  const sessionA = await established(first.page);
  await first.context.close();
  const second = await firstVisit(browser);
  const b = await tlsFromGuest(second.page);
  const sessionB = await established(second.page);
  for (const run of [a, b]) {
    expect(run.body).toBe("Fresh machines only.");
    expect(run.randoms).toHaveLength(1);
    // The key log format is hex of either case (wolfSSL writes upper case, OpenSSL lower).
    expect(run.randoms[0]).toMatch(/^[0-9a-f]{64}$/i);
    expect(run.secrets.length).toBeGreaterThanOrEqual(4);
    // The guest's clock is this machine's, not the shipped state's.
    expect(Math.abs(run.clock - Date.now() / 1000)).toBeLessThan(300);
  }
  expect(a.randoms[0]).not.toBe(b.randoms[0]);
  for (const secret of a.secrets) expect(b.secrets).not.toContain(secret);
  // The page terminated both connections with its session CA, delivered as before; the guest's
  // curl offered X25519 first, so no HelloRetryRequest (guest/patches, guest/README.md "curl").
  for (const session of [sessionA, sessionB]) expect(session).toMatchObject({ sni: "api.github.com", group: "x25519", helloRetry: false });
});

test("the next curl to the same host resumes the last one's TLS session: no certificate, the same one on record; under Landlock without /tmp it still works", async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const visit = visits[0];
  if (!visit) throw new Error("no first visit left open");
  const { page } = visit;
  const sessions = () => page.evaluate(() => window.__tab?.log.ofKind("tls.session").filter((e) => e.phase === "established") ?? []);
  const before = await sessions();
  const full = before.at(-1);
  expect(full?.resumed ?? false).toBe(false);
  // Twice: every resumed session hands the guest a fresh ticket for the next one.
  for (let i = 0; i < 2; i++) {
    const { output, status } = await runInGuest(page, "curl -sS https://api.github.com/zen", BOOT_TIMEOUT_MS);
    expect(status).toBe(0);
    expect(output.trim()).toBe("Fresh machines only.");
  }
  const after = (await sessions()).slice(before.length);
  expect(after).toHaveLength(2);
  // The guest's curl resumes offering psk_ke alone with no key share, and the page accepts it
  // on the guest's link: no key exchange at all (docs/decisions/0024-psk-ke-on-the-guest-link.md).
  for (const session of after)
    expect(session).toMatchObject({
      resumed: true,
      pskMode: "psk_ke",
      helloRetry: false,
      sni: "api.github.com",
      group: null,
      certFingerprint: full?.certFingerprint,
    });
  // The Proxy panel says so on the session's row.
  await page.locator('[data-tab="proxy"]').click();
  await expect(page.locator("#panel-proxy tbody tr").filter({ hasText: "tls established (resumed)" }).first()).toBeVisible();
  await page.screenshot({ path: "docs/screenshots/tls-resumed.jpeg", type: "jpeg", quality: 70 }); // docs/guide.md
  // Where curl may not write its session file, the curl command leaves the option out: no
  // warning, exit status 0, a full handshake.
  const confined = await runInGuest(page, "llrun --ro / --connect 3128 -- curl -sS https://api.github.com/zen 2>&1", BOOT_TIMEOUT_MS);
  expect(confined.status).toBe(0);
  expect(confined.output).toContain("Fresh machines only.");
  expect(confined.output).not.toMatch(/warning|session file/i);
  expect((await sessions()).at(-1)?.resumed ?? false).toBe(false);
});

test('"Boot fresh" boots the image cold, and a reload then restores the state that boot saved', async () => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const visit = visits[0];
  if (!visit) throw new Error("no first visit left open");
  const { page } = visit;
  visit.fetched.length = 0;
  await page.getByRole("button", { name: "Boot fresh" }).click();
  await page.waitForURL(/boot=fresh/);
  await waitForGuest(page);
  const seen = await phases(page);
  expect(seen).toContain("ready");
  expect(seen).not.toContain("snapshot-restore");
  expect(visit.fetched).toContain("bzImage");
  expect(visit.fetched).toContain("initramfs.cpio.zst");
  expect(visit.fetched).not.toContain("state.bin.zst");
  // Asked for once: the address no longer says boot=fresh, so a reload restores the saved state.
  expect(new URL(page.url()).searchParams.get("boot")).toBeNull();
  await page.waitForFunction(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save"), undefined, {
    timeout: 120_000,
  });
  await keepWarmState(page); // the suite's other files may restore it (e2e/support/warm-state.ts)
  visit.fetched.length = 0;
  await page.reload();
  await waitForGuest(page);
  const again = await phases(page);
  expect(again).toContain("snapshot-restore");
  expect(again).toContain("fresh");
  const restored = await page.evaluate(
    () => window.__tab?.log.ofKind("boot.progress").find((e) => e.phase === "snapshot-restore")?.message,
  );
  expect(restored).toContain("the state saved on your last visit");
  // A returning visitor does not download the shipped state: the page's localStorage flag said
  // so before IndexedDB could (src/page/early-state-download.ts).
  expect(visit.fetched).not.toContain("state.bin.zst");
  const { output } = await runInGuest(page, "echo again-$((40+2))");
  expect(output).toContain("again-42");
});

test("a state saved without the page's localStorage flag is still restored, not the shipped one", async ({ browser }) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  // The state the cold boot above saved, in a browser whose localStorage is empty (as for a
  // visitor whose state was saved before the page kept its flag): the first script starts
  // the shipped state's download at once, and the page asks IndexedDB before it takes it.
  const { context, page } = await openPlayground(browser, null, { warm: false });
  const visit = { context, page, fetched: [] as string[] };
  visits.push(visit);
  expect(await seedWarmState(page)).toBe(true);
  expect(await page.evaluate(() => localStorage.length)).toBe(0);
  await page.goto("./");
  await waitForGuest(page);
  const restored = await page.evaluate(
    () => window.__tab?.log.ofKind("boot.progress").find((e) => e.phase === "snapshot-restore")?.message,
  );
  expect(restored).toContain("the state saved on your last visit");
  // Restoring it left the flag, so the next visit does not start that download at all.
  expect(await page.evaluate((flag) => localStorage.getItem(flag), SNAPSHOT_FLAG)).toBe("1");
});

test("a state saved on another machine (the same image, before v86's ACPI was on) is never restored: the page restores the shipped state and the guest works", async ({
  browser,
}) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const sums = parseSha256Sums(readFileSync("vendor/guest/SHA256SUMS", "utf8"));
  const image = Object.fromEntries(
    ["seabios.bin", "vgabios.bin", "bzImage", "initramfs.cpio.zst"].map((name) => [name, sums.get(name) ?? ""]),
  );
  const { apic: _acpi, ...beforeAcpi } = machineRecord();
  const { context, page } = await openPlayground(browser, null, { warm: false });
  visits.push({ context, page, fetched: [] });
  // A returning visitor's state, and the flag that says so, from the machine before this one.
  expect(await seedWarmState(page, snapshotKey(image, beforeAcpi))).toBe(true);
  await page.evaluate((flag) => localStorage.setItem(flag, "1"), SNAPSHOT_FLAG);
  await page.goto("./");
  await waitForGuest(page);
  const restored = await page.evaluate(
    () => window.__tab?.log.ofKind("boot.progress").find((e) => e.phase === "snapshot-restore")?.message,
  );
  expect(restored).toContain("the shipped state");
  const { output, status } = await runInGuest(page, "echo this-machine-$((6*7))");
  expect(status).toBe(0);
  expect(output).toContain("this-machine-42");
});

test("keys typed at a restored guest's first prompt run at once, before the page's network is up; a curl among them waits for the network and gets its answer", async ({
  browser,
}) => {
  test.setTimeout(BOOT_TIMEOUT_MS);
  const line = "echo early-$((6*7)); curl -sS https://api.github.com/zen; echo curl-status=$?";
  let earlyAnswer: { networkConnected: boolean } | null = null;
  const visit = await firstVisit(browser, {
    // The network's code arrives seconds late (its chunk held back), so the prompt comes first.
    async before(page) {
      await page.route(/\/assets\/network-[^/]*\.js$/, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 4000));
        await route.continue();
      });
    },
    async during(page) {
      await page.waitForFunction(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "fresh"));
      await page.keyboard.insertText(line);
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await terminalRows(page)).some((row) => row === "early-42"), { timeout: 10_000 }).toBe(true);
      earlyAnswer = await page.evaluate(() => ({ networkConnected: performance.getEntriesByName("tab:network-connected").length > 0 }));
    },
  });
  expect(earlyAnswer).toEqual({ networkConnected: false });
  const { page } = visit;
  await page.waitForFunction(() => /curl-status=\d+/.test(window.__tab?.guest?.console.text ?? ""));
  const text = await page.evaluate(() => window.__tab?.guest?.console.text ?? "");
  expect(text).toContain("Fresh machines only.");
  expect(text).toContain("curl-status=0");
  visits.splice(visits.indexOf(visit), 1);
  await closePlayground(visit);
});

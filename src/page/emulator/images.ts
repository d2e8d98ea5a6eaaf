import { readCapped, sha256Hex } from "../../bytes";
import type { EventLog } from "../../log";
import { BOOT_FILE_NAMES, type BootFiles, createDownloadMeter, describeDownload, parseSha256Sums } from "../../machine";
import { messageOf } from "../../platform";
import { takeEarlyDownload } from "./early-downloads";

/** The guest files a cold boot needs, verified, with the sha256 of each (for snapshot keys). */
export interface GuestImages extends BootFiles {
  hashes: Record<string, string>;
}

export class GuestImageError extends Error {
  override name = "GuestImageError";
}

async function fetchWithProgress(
  url: string,
  signal: AbortSignal,
  onProgress: (loaded: number, total: number) => void,
): Promise<Uint8Array> {
  let response: Response;
  try {
    // A first visit's state may be under way already (early-downloads.ts); if that request
    // failed, it is asked for again here.
    const early = takeEarlyDownload(url);
    if (early) signal.addEventListener("abort", () => early.abort(), { once: true });
    response = await (early?.response.catch(() => fetch(url, { signal })) ?? fetch(url, { signal }));
  } catch (error) {
    throw new GuestImageError(`could not fetch ${url}: ${messageOf(error)}`);
  }
  if (!response.ok) throw new GuestImageError(`${url} is missing (HTTP ${response.status}); is vendor/guest complete?`);
  const total = Number(response.headers.get("Content-Length") ?? 0);
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const body = await readCapped(response.body, Number.POSITIVE_INFINITY, (loaded) => onProgress(loaded, total));
  if (!body.ok) throw body.problem === "failed" ? body.error : new GuestImageError(`${url} is too large`);
  return body.bytes;
}

/** The guest's SHA256SUMS, fetched first: it names (and pins) every file the page may download. */
export async function loadGuestSums(base: string): Promise<Map<string, string>> {
  const url = `${base}SHA256SUMS`;
  // A first visit's may be under way already (early-downloads.ts).
  const early = takeEarlyDownload(url);
  const response = await (early?.response.catch(() => fetch(url)) ?? fetch(url)).catch(() => null);
  if (!response?.ok) throw new GuestImageError(`${base}SHA256SUMS is missing: the guest image is not installed (vendor/guest)`);
  return parseSha256Sums(await response.text());
}

/**
 * The image's sha256 per boot file, as SHA256SUMS pins them: what a saved state is keyed by, known
 * before (and without) downloading the files, since every download is checked against them.
 */
export function imageHashes(sums: Map<string, string>): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const name of Object.values(BOOT_FILE_NAMES)) {
    const hash = sums.get(name);
    if (!hash) throw new GuestImageError(`SHA256SUMS does not list ${name}: the guest image is incomplete`);
    hashes[name] = hash;
  }
  return hashes;
}

/**
 * Downloads `names` from `base` (the page's `guest/` folder) with progress on the log (bytes,
 * total and speed: the boot bar's text), and checks each against SHA256SUMS: a missing file or
 * a wrong hash is a clear error naming the file, never a guest that starts from bad bytes. The
 * first failure stops the other downloads. WebCrypto has no incremental SHA-256, so each file
 * is hashed once it is whole (tens of ms for the state; docs/performance.md).
 */
export async function downloadVerified(
  base: string,
  names: readonly string[],
  sums: Map<string, string>,
  log: EventLog,
  message: string,
): Promise<Map<string, ArrayBuffer>> {
  for (const name of names)
    if (!sums.has(name)) throw new GuestImageError(`SHA256SUMS does not list ${name}: the guest image is incomplete`);
  const abort = new AbortController();
  const loaded: Record<string, number> = {};
  const totals: Record<string, number> = {};
  let lastReport = 0;
  const meter = createDownloadMeter();
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const report = (force = false) => {
    if (abort.signal.aborted) return;
    const now = performance.now();
    const reading = meter.update(sum(loaded), sum(totals), now);
    if (!force && now - lastReport < 150) return;
    lastReport = now;
    log.append({ kind: "boot.progress", phase: "download", message: `${message}: ${describeDownload(reading)}`, ...reading });
  };
  const entries = await Promise.all(
    names.map(async (name) => {
      const bytes = await fetchWithProgress(`${base}${name}`, abort.signal, (l, t) => {
        loaded[name] = l;
        totals[name] = t;
        report();
      });
      const actual = await sha256Hex(bytes);
      const expected = sums.get(name);
      if (actual !== expected) throw new GuestImageError(`${name}: sha256 ${actual} does not match SHA256SUMS (${expected})`);
      return [name, bytes.buffer as ArrayBuffer] as const;
    }),
  ).catch((error: unknown) => {
    abort.abort();
    throw error;
  });
  report(true);
  return new Map(entries);
}

/** The files a cold boot needs, downloaded and verified. */
export async function loadGuestImages(base: string, sums: Map<string, string>, log: EventLog): Promise<GuestImages> {
  const hashes = imageHashes(sums);
  const files = await downloadVerified(base, Object.values(BOOT_FILE_NAMES), sums, log, "downloading the guest image");
  log.append({ kind: "boot.progress", phase: "verify", message: "every guest file matches SHA256SUMS" });
  const get = (name: string) => files.get(name) as ArrayBuffer;
  return {
    bios: get(BOOT_FILE_NAMES.bios),
    vgaBios: get(BOOT_FILE_NAMES.vgaBios),
    bzImage: get(BOOT_FILE_NAMES.bzImage),
    initrd: get(BOOT_FILE_NAMES.initrd),
    hashes,
  };
}

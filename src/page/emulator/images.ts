import { readCapped, sha256Hex } from "../../bytes";
import type { EventLog } from "../../log";

/** The guest files the page needs, as named in vendor/guest/SHA256SUMS. */
export interface GuestImages {
  bios: ArrayBuffer;
  vgaBios: ArrayBuffer;
  bzImage: ArrayBuffer;
  initrd: ArrayBuffer;
  /** sha256 of each file, for snapshot keys. */
  hashes: Record<string, string>;
}

export class GuestImageError extends Error {
  override name = "GuestImageError";
}

/** Parses `sha256sum` output: `<64 hex>  <name>` per line. */
export function parseSha256Sums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{64}) [ *]?(\S+)$/.exec(line.trim());
    if (m?.[1] && m[2]) sums.set(m[2], m[1]);
  }
  return sums;
}

async function fetchWithProgress(
  url: string,
  signal: AbortSignal,
  onProgress: (loaded: number, total: number) => void,
): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    throw new GuestImageError(`could not fetch ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new GuestImageError(`${url} is missing (HTTP ${response.status}); is vendor/guest complete?`);
  const total = Number(response.headers.get("Content-Length") ?? 0);
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const body = await readCapped(response.body, Number.POSITIVE_INFINITY, (loaded) => onProgress(loaded, total));
  if (!body.ok) throw body.problem === "failed" ? body.error : new GuestImageError(`${url} is too large`);
  return body.bytes;
}

/**
 * Downloads the guest image files from `base` (the page's `guest/` folder), with progress on
 * the log, and checks each against SHA256SUMS: a missing file or a wrong hash is a clear
 * error naming the file, never a guest that boots from bad bytes.
 */
export async function loadGuestImages(base: string, log: EventLog): Promise<GuestImages> {
  const sumsResponse = await fetch(`${base}SHA256SUMS`).catch(() => null);
  if (!sumsResponse?.ok) throw new GuestImageError(`${base}SHA256SUMS is missing: the guest image is not installed (vendor/guest)`);
  const sums = parseSha256Sums(await sumsResponse.text());
  // The kernel unpacks a compressed initramfs itself (RD_ZSTD, RD_GZIP): guest/README.md.
  const initrdName = ["initramfs.cpio", "initramfs.cpio.zst", "initramfs.cpio.gz"].find((n) => sums.has(n)) ?? "initramfs.cpio";
  const names = { bios: "seabios.bin", vgaBios: "vgabios.bin", bzImage: "bzImage", initrd: initrdName } as const;
  for (const name of Object.values(names))
    if (!sums.has(name)) throw new GuestImageError(`SHA256SUMS does not list ${name}: the guest image is incomplete`);

  // The first failure stops the other downloads: no progress after the error.
  const abort = new AbortController();
  const loaded: Record<string, number> = {};
  const totals: Record<string, number> = {};
  let lastReport = 0;
  const report = () => {
    if (abort.signal.aborted) return;
    const now = Date.now();
    if (now - lastReport < 150) return;
    lastReport = now;
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    log.append({
      kind: "boot.progress",
      phase: "download",
      message: "downloading the guest image",
      loaded: sum(loaded),
      total: sum(totals),
    });
  };

  const hashes: Record<string, string> = {};
  const entries = await Promise.all(
    Object.entries(names).map(async ([key, name]) => {
      const bytes = await fetchWithProgress(`${base}${name}`, abort.signal, (l, t) => {
        loaded[name] = l;
        totals[name] = t;
        report();
      });
      const actual = await sha256Hex(bytes);
      const expected = sums.get(name);
      if (actual !== expected) throw new GuestImageError(`${name}: sha256 ${actual} does not match SHA256SUMS (${expected})`);
      hashes[name] = actual;
      return [key, bytes.buffer as ArrayBuffer] as const;
    }),
  ).catch((error: unknown) => {
    abort.abort();
    throw error;
  });
  log.append({ kind: "boot.progress", phase: "verify", message: "every guest file matches SHA256SUMS" });
  const byKey = Object.fromEntries(entries) as Record<keyof typeof names, ArrayBuffer>;
  return { ...byKey, hashes };
}

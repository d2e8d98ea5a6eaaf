/**
 * How a download of the guest's files is going, for the boot bar: bytes so far, the total,
 * and the speed over the last few seconds (a whole-download average would hide a link that
 * just slowed down, one sample would flicker).
 */

/** How far back the speed looks. */
const WINDOW_MS = 2_000;

export interface DownloadReading {
  loaded: number;
  /** 0 while unknown (no Content-Length yet). */
  total: number;
  /** Bytes a second over the window; 0 until two samples are at least 100 ms apart. */
  bytesPerSecond: number;
}

export interface DownloadMeter {
  /** Records `loaded` bytes in all (of `total`) at `now` ms. */
  update(loaded: number, total: number, now: number): DownloadReading;
}

export function createDownloadMeter(): DownloadMeter {
  const samples: { at: number; loaded: number }[] = [];
  return {
    update(loaded, total, now) {
      samples.push({ at: now, loaded });
      // Keep one sample older than the window, so the window is always spanned.
      while (samples.length > 2 && (samples[1] as { at: number }).at <= now - WINDOW_MS) samples.shift();
      const first = samples[0] as { at: number; loaded: number };
      const span = now - first.at;
      const bytesPerSecond = span >= 100 ? ((loaded - first.loaded) * 1000) / span : 0;
      return { loaded, total, bytesPerSecond: Math.max(0, bytesPerSecond) };
    },
  };
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

/** "3.1 of 6.5 MB, 1.2 MB/s": what the boot bar says after the download's name. */
export function describeDownload({ loaded, total, bytesPerSecond }: DownloadReading): string {
  const amount = total > 0 ? `${mb(loaded)} of ${mb(total)} MB` : `${mb(loaded)} MB`;
  return bytesPerSecond > 0 ? `${amount}, ${mb(bytesPerSecond)} MB/s` : amount;
}

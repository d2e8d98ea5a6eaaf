/**
 * Downloads started before the page's script ran (src/page/early-state-download.ts, written
 * into index.html), handed to the code that would otherwise start them: the page asks
 * for a file by its absolute URL and gets the response already under way, or null.
 */

export interface EarlyDownload {
  response: Promise<Response>;
  abort(): void;
}

declare global {
  interface Window {
    /** By absolute URL: what the early script started and nobody has taken yet. */
    __tabEarlyDownloads?: Record<string, EarlyDownload>;
    /**
     * Whether IndexedDB holds the page's snapshot database, where the early script started the
     * shipped state's download before IndexedDB had said (no localStorage flag: snapshots.ts).
     */
    __tabSnapshotDatabase?: Promise<boolean>;
  }
}

/**
 * Whether the early script started `url` and nobody took it yet. The shipped state's download
 * says the browser had no snapshot database when the page loaded, or no flag of a saved state
 * (then `snapshotDatabaseSeen` says whether there is a database after all).
 */
export function earlyDownloadWaiting(url: string): boolean {
  return globalThis.window?.__tabEarlyDownloads?.[new URL(url, globalThis.location?.href).href] !== undefined;
}

/** Whether IndexedDB holds a snapshot database, as the early script asked it; false when it did not ask. */
export function snapshotDatabaseSeen(): Promise<boolean> {
  return (globalThis.window?.__tabSnapshotDatabase ?? Promise.resolve(false)).catch(() => true);
}

/** The response already under way for `url` (taken: asked again, null), or null. */
export function takeEarlyDownload(url: string): EarlyDownload | null {
  const early = globalThis.window?.__tabEarlyDownloads;
  const absolute = new URL(url, globalThis.location?.href).href;
  const download = early?.[absolute];
  if (!early || !download) return null;
  delete early[absolute];
  return download;
}

/** Stops what nobody took (a returning visitor's state was in IndexedDB after all, or a cold boot). */
export function abandonEarlyDownloads(): void {
  const early = globalThis.window?.__tabEarlyDownloads;
  if (!early) return;
  for (const [url, download] of Object.entries(early)) {
    download.abort();
    delete early[url];
  }
}

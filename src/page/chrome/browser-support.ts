/**
 * What the page needs from the browser, checked once before the guest starts, so a browser
 * that lacks a piece fails with a sentence naming it instead of a TypeError deep in a TLS
 * handshake. Found by running the suite in other engines (Firefox ESR, WebKitGTK).
 */
export interface BrowserGlobals {
  crypto?: { subtle?: SubtleCrypto };
  WebAssembly?: unknown;
  CompressionStream?: new (format: CompressionFormat) => unknown;
  DecompressionStream?: new (format: CompressionFormat) => unknown;
}

/** The engines the test suite runs on every change (README, "Browsers"). */
export const TESTED_BROWSERS = "Chromium 156, Firefox ESR 153 and WebKitGTK 2.50 (the engine of Safari) are tested";

async function works(attempt: () => Promise<unknown>): Promise<boolean> {
  try {
    await attempt();
    return true;
  } catch {
    return false;
  }
}

/** The missing features, each named with what the page uses it for; empty when all is there. */
export async function missingBrowserFeatures(g: BrowserGlobals): Promise<string[]> {
  const missing: string[] = [];
  if (g.WebAssembly === undefined) missing.push("WebAssembly (the emulator)");
  // IndexedDB is not needed: where it is missing or refused (a private window, an embed whose
  // browser blocks its storage) the page keeps nothing and says so (src/page/storage-probe.ts).
  const subtle = g.crypto?.subtle;
  if (subtle === undefined) {
    missing.push("WebCrypto (only in a secure context: open the page over https or from localhost)");
    return missing;
  }
  if (!compresses(g)) missing.push("CompressionStream with gzip and deflate-raw (the saved guest state, share and lesson links)");
  const { x25519, p256 } = await keyExchanges(subtle);
  if (!x25519 && !p256) missing.push("WebCrypto X25519 or ECDH P-256 (the TLS key exchange with the guest)");
  if (!(await works(() => subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]))))
    missing.push("WebCrypto ECDSA P-256 (the vault's manifest signatures)");
  if (!(await works(() => subtle.generateKey({ name: "AES-GCM", length: 128 }, false, ["encrypt"]))))
    missing.push("WebCrypto AES-GCM (TLS records)");
  return missing;
}

function compresses(g: BrowserGlobals): boolean {
  try {
    for (const format of ["gzip", "deflate-raw"] as const) {
      if (!g.CompressionStream || !g.DecompressionStream) return false;
      new g.CompressionStream(format);
      new g.DecompressionStream(format);
    }
    return true;
  } catch {
    return false;
  }
}

async function keyExchanges(subtle: SubtleCrypto): Promise<{ x25519: boolean; p256: boolean }> {
  const [x25519, p256] = await Promise.all([
    works(() => subtle.generateKey({ name: "X25519" }, false, ["deriveBits"])),
    works(() => subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"])),
  ]);
  return { x25519, p256 };
}

/**
 * What the page does differently in this browser, each said in a sentence before the guest
 * starts (on the log, as a warning): a missing piece that has a fallback.
 */
export async function browserFallbacks(g: BrowserGlobals): Promise<string[]> {
  const subtle = g.crypto?.subtle;
  if (subtle === undefined) return [];
  const { x25519, p256 } = await keyExchanges(subtle);
  return !x25519 && p256
    ? ["This browser's WebCrypto lacks X25519: the guest's TLS with the page uses P-256 instead (one round trip more per connection)."]
    : [];
}

/** The sentence the boot bar shows when something is missing. */
export function unsupportedBrowserMessage(missing: string[]): string {
  return `This browser lacks ${missing.join("; ")}. ${TESTED_BROWSERS}.`;
}

/** Thrown before boot when the browser lacks something: its message is for the person. */
export class UnsupportedBrowserError extends Error {}

/**
 * What the page needs from the browser, checked once before the guest starts, so a browser
 * that lacks a piece fails with a sentence naming it instead of a TypeError deep in a TLS
 * handshake. Found by running the suite in a second engine (Firefox ESR).
 */
export interface BrowserGlobals {
  crypto?: { subtle?: SubtleCrypto };
  indexedDB?: unknown;
  WebAssembly?: unknown;
}

/** The engines the test suite runs on every change (README, "Browsers"). */
export const TESTED_BROWSERS = "Chromium 150 and Firefox ESR 140 are tested";

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
  if (g.indexedDB === undefined) missing.push("IndexedDB (the cache and the saved guest state)");
  const subtle = g.crypto?.subtle;
  if (subtle === undefined) {
    missing.push("WebCrypto (only in a secure context: open the page over https or from localhost)");
    return missing;
  }
  if (!(await works(() => subtle.generateKey({ name: "X25519" }, false, ["deriveBits"]))))
    missing.push("WebCrypto X25519 (the TLS key exchange with the guest)");
  if (!(await works(() => subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]))))
    missing.push("WebCrypto ECDSA P-256 (the vault's manifest signatures)");
  if (!(await works(() => subtle.generateKey({ name: "AES-GCM", length: 128 }, false, ["encrypt"]))))
    missing.push("WebCrypto AES-GCM (TLS records)");
  return missing;
}

/** The sentence the boot bar shows when something is missing. */
export function unsupportedBrowserMessage(missing: string[]): string {
  return `This browser lacks ${missing.join("; ")}. ${TESTED_BROWSERS}.`;
}

/** Thrown before boot when the browser lacks something: its message is for the person. */
export class UnsupportedBrowserError extends Error {}

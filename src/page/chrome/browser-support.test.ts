import { describe, expect, it } from "vitest";
import { browserFallbacks, missingBrowserFeatures, unsupportedBrowserMessage } from "./browser-support";

const streams = { CompressionStream: globalThis.CompressionStream, DecompressionStream: globalThis.DecompressionStream };
const full = { crypto: globalThis.crypto, WebAssembly: globalThis.WebAssembly, ...streams };

function subtleWithout(name: string): SubtleCrypto {
  const real = globalThis.crypto.subtle;
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "generateKey")
        return (algorithm: { name: string }, ...rest: [boolean, KeyUsage[]]) =>
          algorithm.name === name
            ? Promise.reject(new DOMException("not supported", "NotSupportedError"))
            : target.generateKey(algorithm, ...rest);
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("the page names what a browser lacks before the guest starts", () => {
  it("a browser with everything the page uses lacks nothing", async () => {
    expect(await missingBrowserFeatures(full)).toEqual([]);
  });

  it.each([
    ["ECDSA", "WebCrypto ECDSA P-256 (the vault's manifest signatures)"],
    ["AES-GCM", "WebCrypto AES-GCM (TLS records)"],
  ])("a WebCrypto without %s is named with what it is for", async (algorithm, named) => {
    expect(await missingBrowserFeatures({ ...full, crypto: { subtle: subtleWithout(algorithm) } })).toEqual([named]);
  });

  it("a WebCrypto without X25519 lacks nothing: the guest's TLS falls back to P-256, and the page says so", async () => {
    const crypto = { subtle: subtleWithout("X25519") };
    expect(await missingBrowserFeatures({ ...full, crypto })).toEqual([]);
    expect(await browserFallbacks({ ...full, crypto })).toEqual([
      "This browser's WebCrypto lacks X25519: the guest's TLS with the page uses P-256 instead (one round trip more per connection).",
    ]);
    expect(await browserFallbacks(full)).toEqual([]);
  });

  it("a WebCrypto without X25519 and without ECDH P-256 has no key exchange for TLS left", async () => {
    const real = subtleWithout("X25519");
    const neither = new Proxy(real, {
      get: (target, prop) =>
        prop === "generateKey"
          ? (algorithm: { name: string }, ...rest: [boolean, KeyUsage[]]) =>
              algorithm.name === "ECDH"
                ? Promise.reject(new DOMException("no", "NotSupportedError"))
                : target.generateKey(algorithm, ...rest)
          : Reflect.get(target, prop),
    });
    expect(await missingBrowserFeatures({ ...full, crypto: { subtle: neither } })).toEqual([
      "WebCrypto X25519 or ECDH P-256 (the TLS key exchange with the guest)",
    ]);
  });

  it("a browser without CompressionStream for gzip or deflate-raw is told what it is for", async () => {
    class GzipOnly {
      constructor(format: string) {
        if (format !== "gzip") throw new TypeError(`unsupported format ${format}`);
      }
    }
    expect(await missingBrowserFeatures({ ...full, CompressionStream: GzipOnly, DecompressionStream: GzipOnly })).toEqual([
      "CompressionStream with gzip and deflate-raw (the saved guest state, share and lesson links)",
    ]);
  });

  it("IndexedDB is not required: a private window or a storage-blocked embed still starts (it keeps nothing, storage-probe says so)", async () => {
    expect(await missingBrowserFeatures(full)).toEqual([]);
  });

  it("an insecure context (no crypto.subtle) says how to open the page instead", async () => {
    const missing = await missingBrowserFeatures({ ...full, crypto: {} });
    expect(missing).toEqual(["WebCrypto (only in a secure context: open the page over https or from localhost)"]);
  });

  it("no WebAssembly and no compression streams are both named, and the message says what is tested", async () => {
    const missing = await missingBrowserFeatures({ crypto: globalThis.crypto });
    expect(missing).toEqual([
      "WebAssembly (the emulator)",
      "CompressionStream with gzip and deflate-raw (the saved guest state, share and lesson links)",
    ]);
    expect(unsupportedBrowserMessage(missing)).toBe(
      "This browser lacks WebAssembly (the emulator); CompressionStream with gzip and deflate-raw (the saved guest state, share and lesson links). Chromium 156, Firefox ESR 153 and WebKitGTK 2.50 (the engine of Safari) are tested.",
    );
  });
});

import { describe, expect, it } from "vitest";
import { missingBrowserFeatures, unsupportedBrowserMessage } from "./browser-support";

const full = { crypto: globalThis.crypto, indexedDB: {}, WebAssembly: globalThis.WebAssembly };

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
    ["X25519", "WebCrypto X25519 (the TLS key exchange with the guest)"],
    ["ECDSA", "WebCrypto ECDSA P-256 (the vault's manifest signatures)"],
    ["AES-GCM", "WebCrypto AES-GCM (TLS records)"],
  ])("a WebCrypto without %s is named with what it is for", async (algorithm, named) => {
    expect(await missingBrowserFeatures({ ...full, crypto: { subtle: subtleWithout(algorithm) } })).toEqual([named]);
  });

  it("an insecure context (no crypto.subtle) says how to open the page instead", async () => {
    const missing = await missingBrowserFeatures({ ...full, crypto: {} });
    expect(missing).toEqual(["WebCrypto (only in a secure context: open the page over https or from localhost)"]);
  });

  it("no IndexedDB and no WebAssembly are both named, and the message says what is tested", async () => {
    const missing = await missingBrowserFeatures({ crypto: globalThis.crypto });
    expect(missing).toEqual(["WebAssembly (the emulator)", "IndexedDB (the cache and the saved guest state)"]);
    expect(unsupportedBrowserMessage(missing)).toBe(
      "This browser lacks WebAssembly (the emulator); IndexedDB (the cache and the saved guest state). Chromium 150 and Firefox ESR 140 are tested.",
    );
  });
});

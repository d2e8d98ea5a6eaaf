import * as Comlink from "comlink";

/**
 * SHA-256 off the main thread for the content-addressed cache (heavy work goes to a Comlink worker).
 * WebCrypto is the hash; the worker only keeps a large digest from blocking the page's
 * event loop while the guest and the panels run.
 */
export const hashWorkerApi = {
  async sha256(bytes: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  },
};

export type HashWorkerApi = typeof hashWorkerApi;

Comlink.expose(hashWorkerApi);

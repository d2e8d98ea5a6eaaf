import * as Comlink from "comlink";
import { type Sha256, webSha256 } from "../bytes";
import type { HashWorkerApi } from "./hash-worker";

/** Inputs at or above this size are hashed in the worker; smaller ones are not worth the copy. */
export const WORKER_DIGEST_THRESHOLD = 1024 * 1024;

/**
 * The CAS's `digest` for the page: WebCrypto inline for small inputs, a Comlink worker for
 * large ones (a 5 MiB skill directory re-hashed on every read would otherwise stall the
 * page). The worker starts on first use; if it cannot start, hashing stays inline.
 */
export function createPageDigest(threshold = WORKER_DIGEST_THRESHOLD): Sha256 {
  let remote: Comlink.Remote<HashWorkerApi> | null | undefined;
  const worker = (): Comlink.Remote<HashWorkerApi> | null => {
    if (remote !== undefined) return remote;
    try {
      remote = Comlink.wrap<HashWorkerApi>(new Worker(new URL("./hash-worker.ts", import.meta.url), { type: "module" }));
    } catch {
      remote = null;
    }
    return remote;
  };
  return async (bytes) => {
    if (bytes.byteLength < threshold) return webSha256(bytes);
    const api = worker();
    // The bytes are copied into the worker (structured clone): the caller keeps its buffer.
    return api ? api.sha256(bytes) : webSha256(bytes);
  };
}

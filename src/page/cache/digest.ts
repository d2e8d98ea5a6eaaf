import * as Comlink from "comlink";
import { type Sha256, webSha256 } from "../../bytes";
import type { HashWorkerApi } from "./hash-worker";

/** Inputs at or above this size are hashed in the worker; smaller ones are not worth the copy. */
export const WORKER_DIGEST_THRESHOLD = 1024 * 1024;

/**
 * The CAS's `digest` for the page: WebCrypto inline for small inputs, a Comlink worker for
 * large ones (a 5 MiB skill directory re-hashed on every read would otherwise stall the
 * page). The worker starts on first use; if it cannot start, hashing stays inline.
 */
/** The page's digest, with counts of where each input was hashed (shown to tests). */
export type PageDigest = Sha256 & { readonly hashed: { inline: number; worker: number } };

export function createPageDigest(threshold = WORKER_DIGEST_THRESHOLD): PageDigest {
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
  const hashed = { inline: 0, worker: 0 };
  const digest: Sha256 = async (bytes) => {
    const api = bytes.byteLength < threshold ? null : worker();
    if (!api) {
      hashed.inline++;
      return webSha256(bytes);
    }
    // The bytes are copied into the worker (structured clone): the caller keeps its buffer.
    const result = await api.sha256(bytes);
    hashed.worker++;
    return result;
  };
  return Object.assign(digest, { hashed });
}

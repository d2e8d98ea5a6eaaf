import { deflateRawSync } from "node:zlib";

/**
 * Material a stranger's link carries, packed the way the page reads it (deflate-raw, base64url):
 * a lesson draft for `#lesson-draft=` (src/lessons/link.ts) and a policy for `?policy=`
 * (src/page/features/share/link.ts). Written with Node's zlib so a test builds links as any
 * sender could, without the page's code.
 */
export const packForLink = (text: string): string =>
  deflateRawSync(Buffer.from(text, "utf8")).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

import { z } from "zod";

/**
 * TEST ONLY: extra trust anchors for the page's TLS client, so the end-to-end suite can serve
 * a local HTTPS upstream under its own test CA. They come from a global a test defines before
 * the page's scripts run (Playwright's `addInitScript`), never from the URL, storage or a share
 * link: a link that could add a root could let a hostile relay read the traffic. With none
 * defined (every real visit), only the engine's bundled Mozilla roots are trusted.
 */
export const TEST_TRUST_ANCHORS_GLOBAL = "__TAB_TEST_TRUST_ANCHORS__";

const Pem = z
  .string()
  .max(16_384)
  .regex(/^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*$/, "not one PEM certificate");
const TestTrustAnchors = z.array(Pem).max(4);

/** The test's extra roots, or none. A malformed value is ignored and reported, never half-used. */
export function testTrustAnchors(scope: object): { anchors: string[]; error?: string } {
  const value: unknown = Reflect.get(scope, TEST_TRUST_ANCHORS_GLOBAL);
  if (value === undefined) return { anchors: [] };
  const parsed = TestTrustAnchors.safeParse(value);
  return parsed.success ? { anchors: parsed.data } : { anchors: [], error: parsed.error.issues.map((i) => i.message).join("; ") };
}

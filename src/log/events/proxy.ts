import { z } from "zod";
import { VerdictCode } from "../verdict";
import { VerdictFields } from "./common";

/**
 * The one canonical decision event per proxy request (as smokescreen logs one
 * CANONICAL-PROXY-DECISION line). Panels, `GET /v0/log` and tests read this event.
 * Secrets (Authorization, cookies, tokens) are redacted before it is built.
 */
export const ProxyDecision = z.object({
  kind: z.literal("proxy.decision"),
  /** Request id, unique in the session. */
  id: z.string(),
  /** How the request reached the proxy. */
  mode: z.enum(["connect", "absolute", "tunnel", "fetch", "own", "vault"]),
  method: z.string(),
  target: z.string(),
  status: z.number().int(),
  bytes: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  /** Redacted request headers, for the details view. */
  headers: z.record(z.string(), z.string()).optional(),
  /** The TLS session this request travelled in, if any. */
  tlsSession: z.string().optional(),
  /** The URL actually fetched, when it differs from `target` (http upgraded, a CORS proxy). */
  upstream: z.string().optional(),
  /**
   * Which way the request left the host, once it was fetched: the browser's fetch() (CORS
   * applies), a Wisp relay with the page as the TLS client, a CORS proxy (its path is still named `cors-relay` on the log), or the Node host's
   * own TCP and TLS. Absent when nothing was fetched.
   */
  upstreamPath: z.enum(["browser-fetch", "wisp-relay", "cors-relay", "direct"]).optional(),
  ...VerdictFields,
  /**
   * Served, but the upstream's body ended early (it failed, stalled, or was shorter than its
   * Content-Length) after the status line had already gone to the guest: the guest got a
   * success status and a body cut short, signalled only by the connection closing.
   */
  bodyCut: z.literal(true).optional(),
  /** Served under a policy in report mode: the code the allowlist would have refused with, and why. */
  wouldRefuse: VerdictCode.optional(),
  wouldRefuseReason: z.string().optional(),
});

export const proxyEvents = [ProxyDecision] as const;

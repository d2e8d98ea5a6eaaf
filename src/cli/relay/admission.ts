import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { RelayLimits } from "./limits";
import { type OriginRule, originAllowed } from "./origin";

/**
 * Who may open a Wisp session, decided from the upgrade request before any WebSocket exists:
 * the page's origin, the deployment's token if it has one, and how many WebSockets the client
 * already holds. Also the per-client counters the open sessions share (streams per second).
 */

export interface AdmissionRules {
  origins: readonly OriginRule[];
  /** The token a client must pass (`?token=` in the relay URL), or null for none. */
  token: string | null;
  /** Addresses of reverse proxies whose `X-Forwarded-For` names the client. */
  trustedProxies: ReadonlySet<string>;
  limits: RelayLimits;
}

export type Admission =
  | { ok: true; client: string; release: () => void }
  | { ok: false; client: string; status: number; code: "endpoint-not-allowed" | "too-many-connections"; why: string };

export interface Admitter {
  admit(request: IncomingMessage): Admission;
  /** Whether `client` may open one more stream now (a token bucket per client address). */
  takeStream(client: string): boolean;
  /** Streams open in all. */
  readonly streams: { count: number };
}

export function createAdmitter(rules: AdmissionRules, now: () => number = () => performance.now()): Admitter {
  const websockets = new Map<string, number>();
  let websocketsTotal = 0;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const expected = rules.token === null ? null : digest(rules.token);
  const { limits } = rules;

  return {
    streams: { count: 0 },
    admit(request) {
      const client = clientAddress(request, rules.trustedProxies);
      const refuse = (status: number, code: "endpoint-not-allowed" | "too-many-connections", why: string): Admission => ({
        ok: false,
        client,
        status,
        code,
        why,
      });
      const origin = request.headers.origin;
      if (!originAllowed(origin, rules.origins))
        return refuse(
          403,
          "endpoint-not-allowed",
          origin === undefined
            ? "the upgrade has no Origin header; only the playground's pages may use the relay"
            : `origin ${JSON.stringify(origin.slice(0, 200))} is not allowed (--allow-origin adds one)`,
        );
      if (expected !== null) {
        const given = new URL(request.url ?? "/", "http://relay").searchParams.get("token");
        if (given === null) return refuse(401, "endpoint-not-allowed", "the relay URL carries no token (?token=); this relay requires one");
        if (!timingSafeEqual(digest(given), expected))
          return refuse(401, "endpoint-not-allowed", "the relay URL's token is not this relay's");
      }
      const held = websockets.get(client) ?? 0;
      if (held >= limits.websocketsPerClient)
        return refuse(
          429,
          "too-many-connections",
          `${client} already holds ${held} WebSockets (at most ${limits.websocketsPerClient} per client)`,
        );
      if (websocketsTotal >= limits.websocketsTotal)
        return refuse(
          503,
          "too-many-connections",
          `the relay already holds ${websocketsTotal} WebSockets (at most ${limits.websocketsTotal})`,
        );
      websockets.set(client, held + 1);
      websocketsTotal++;
      let released = false;
      return {
        ok: true,
        client,
        release() {
          if (released) return;
          released = true;
          websocketsTotal--;
          const left = (websockets.get(client) ?? 1) - 1;
          if (left > 0) websockets.set(client, left);
          else {
            websockets.delete(client);
            buckets.delete(client);
          }
        },
      };
    },
    takeStream(client) {
      const at = now();
      const bucket = buckets.get(client) ?? { tokens: limits.streamBurst, at };
      bucket.tokens = Math.min(limits.streamBurst, bucket.tokens + ((at - bucket.at) / 1000) * limits.streamsPerSecond);
      bucket.at = at;
      buckets.set(client, bucket);
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
  };
}

/**
 * The client's address: the peer's, or, when the peer is a trusted reverse proxy, the last
 * `X-Forwarded-For` entry not itself a trusted proxy (entries further left are the client's
 * own claims and prove nothing).
 */
export function clientAddress(request: Pick<IncomingMessage, "headers" | "socket">, trustedProxies: ReadonlySet<string>): string {
  const peer = normalise(request.socket.remoteAddress ?? "unknown");
  if (!trustedProxies.has(peer)) return peer;
  const header = request.headers["x-forwarded-for"];
  const entries = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((e) => normalise(e.trim()))
    .filter(Boolean);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as string;
    if (!trustedProxies.has(entry)) return entry.slice(0, 64);
  }
  return peer;
}

/** `::ffff:127.0.0.1` as `127.0.0.1`, as an IPv4 client is usually written. */
function normalise(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

import type { ByteStream } from "../bytes";
import { refuse } from "../log";
import { Connection } from "./connection";
import { Exchange, type ExchangeContext, type Next } from "./exchange";
import { parseRequestHead } from "./head";
import {
  ByteBudget,
  DEFAULT_BODY_BUDGET_BYTES,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CHUNKS,
  DEFAULT_MAX_CONNECTIONS,
  HEAD_LIMIT,
} from "./limits";
import { ownEndpoints } from "./own-endpoints";
import { ConnectionTimeouts, headTimeoutVerdict, idleNote, timeoutSettings, upstreamClock } from "./timeouts";
import type { EgressProxy, ProxyOptions, TunnelContext } from "./types";

/**
 * The proxy (`.net` in the design, docs/decisions/0005-the-page-is-the-only-network-client.md): every request the guest makes comes through `handle`, gets a
 * verdict from the policy, and exactly one `proxy.decision` event. Allowed requests are fetched
 * with the injected fetch; nothing here touches a socket, the DOM or Node.
 */

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

export function createProxy(options: ProxyOptions): EgressProxy {
  let counter = 0;
  const ownHosts = new Set((typeof options.ownHost === "string" ? [options.ownHost] : options.ownHost).map((h) => h.toLowerCase()));

  const timeouts = timeoutSettings(options);
  const maxConnections = positiveInteger("maxConnections", options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  let serving = 0;
  const context: ExchangeContext = {
    options,
    limits: {
      maxBodyBytes: positiveInteger("maxBodyBytes", options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
      maxChunks: positiveInteger("maxChunks", options.maxChunks ?? DEFAULT_MAX_CHUNKS),
    },
    budget: new ByteBudget(positiveInteger("bodyBudgetBytes", options.bodyBudgetBytes ?? DEFAULT_BODY_BUDGET_BYTES)),
    ownHosts,
    endpoints: ownEndpoints(options),
    upstreamClock: upstreamClock(options),
    serveConnection: (stream, tunnel) => serveConnection(stream, tunnel),
  };

  async function serveConnection(stream: ByteStream, tunnel: TunnelContext | null): Promise<void> {
    let lastRequest: string | null = null;
    // Inside a tunnel the outer connection's idle clock sees every byte: one idle clock is enough.
    const onIdle =
      tunnel || !timeouts
        ? null
        : () => {
            options.log.append(idleNote(timeouts.idleMs, conn.tunnelTarget, lastRequest));
            conn.expire();
          };
    const clocks = new ConnectionTimeouts(timeouts, onIdle);
    const conn = new Connection(stream, (direction) => clocks.traffic(direction));
    try {
      for (let first = true; ; first = false) {
        const started = first || conn.source.buffered > 0;
        const read = await clocks.readHead(() => conn.source.readHead(HEAD_LIMIT), started);
        if (read.kind === "eof") break;
        const exchange = new Exchange(context, conn, clocks, `r${++counter}`, options.clock(), tunnel);
        lastRequest = exchange.id;
        let next: Next;
        try {
          if (read.kind === "timeout") next = await exchange.refuse("?", "", headTimeoutVerdict(read.afterMs), true, { status: 408 });
          else if (read.kind === "error") next = await exchange.refuse("?", "", refuse("bad-request", read.reason, "proxy"), true);
          else {
            const parsed = parseRequestHead(read.bytes);
            next = parsed.ok
              ? await exchange.serve(parsed.head)
              : await exchange.refuse("?", "", refuse("bad-request", parsed.reason, "proxy"), true);
          }
        } catch (error) {
          // Whatever failed, the exchange ends with one decision and, if nothing was sent yet, a reply.
          await exchange.failed(error);
          next = "close";
        } finally {
          exchange.lease.release();
        }
        if (next === "close") break;
      }
    } catch {
      // The peer went away or the stream failed: this connection ends, no other is touched.
    } finally {
      await conn.close();
      clocks.dispose();
    }
  }

  /** One connection past the cap: answered and closed without reading from it. */
  async function refuseConnection(stream: ByteStream): Promise<void> {
    const conn = new Connection(stream, () => undefined);
    const exchange = new Exchange(context, conn, new ConnectionTimeouts(null, null), `r${++counter}`, options.clock(), null);
    const reason = `too many connections: the proxy serves ${maxConnections} at once (maxConnections); try again when one has ended`;
    try {
      await exchange.refuse("?", "", refuse("too-many-connections", reason, "proxy"), true);
    } catch {
      // The client is gone already: the decision is recorded all the same.
    } finally {
      exchange.lease.release();
      await conn.close();
    }
  }

  async function handle(stream: ByteStream): Promise<void> {
    if (serving >= maxConnections) return refuseConnection(stream);
    serving++;
    try {
      await serveConnection(stream, null);
    } finally {
      serving--;
    }
  }

  return {
    handle,
    serveTunnel: (plain, tunnel) => serveConnection(plain, tunnel),
  };
}

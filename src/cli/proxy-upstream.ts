import { findHostRule, type Policy } from "../policy";
import type { HostResolution, UpstreamFetch } from "../proxy";
import { createGuardedFetch, type Lookup } from "./guarded-fetch";

/**
 * The Node host's upstream for the proxy: the one guarded fetch (./guarded-fetch),
 * with the policy's own rules for what it may reach besides 443 over https. The proxy calls
 * `resolveHost` first (a refusal there is the decision's verdict) and hands the checked
 * address to `fetch`, which connects to it and nowhere else.
 */

export interface NodeUpstreamOptions {
  /** The policy in force: its ports and its `http` handling are the guard's rules too. */
  policy: () => Policy;
  /**
   * TEST ONLY (`--allow-private-for-tests`): addresses that may be connected to although they
   * are private, so CLI tests can reach an upstream on 127.0.0.1. Empty by default.
   */
  allowPrivate?: ReadonlySet<string>;
  timeoutMs?: number;
  lookup?: Lookup;
}

export function createNodeUpstream(options: NodeUpstreamOptions): {
  fetch: UpstreamFetch;
  resolveHost: (host: string) => Promise<HostResolution>;
} {
  const { policy } = options;
  const guard = createGuardedFetch({
    ports: (host) => {
      const current = policy();
      return findHostRule(current, host)?.ports ?? current.ports;
    },
    allowHttp: () => policy().http === "allow",
    ...(options.allowPrivate ? { allowPrivateForTests: options.allowPrivate } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  return {
    resolveHost: guard.resolveHost,
    fetch: (url, init) =>
      guard.request(url, {
        method: init.method,
        headers: init.headers,
        body: init.body,
        ...(init.address === undefined ? {} : { address: init.address }),
      }),
  };
}

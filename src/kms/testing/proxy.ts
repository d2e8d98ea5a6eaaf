import { toBase64 } from "../../bytes";
import type { Policy } from "../../policy";
import { createProxy } from "../../proxy";
import { GRANT_HEADER } from "../endpoints";
import { EMPTY_HEAD, type VaultHead } from "../schema";
import { type FixtureOptions, policyWith, text, vaultFixture } from "./fixtures";
import { exchange, postRequest } from "./http";

/** A vault service behind a proxy, driven over HTTP as the guest's sgit drives it. */
export function proxiedVault(options: FixtureOptions & { policy?: Policy } = {}) {
  const f = vaultFixture(options);
  let policy = options.policy ?? policyWith("notes");
  const proxy = createProxy({
    policy: () => policy,
    fetch: () => Promise.reject(new Error("no upstream in these tests")),
    clock: () => 0,
    log: f.log,
    ownHost: "10.0.2.2:3128",
    handlers: f.handlers,
  });
  const call = (path: string, body: unknown, token?: string) =>
    exchange(proxy, postRequest(path, body, token ? { [GRANT_HEADER]: token } : {}));
  const grant = async (vaultId: string, op: "read" | "write") => {
    const answer = await call("/v0/vault/grant", { vault_id: vaultId, op, command: `test ${op}` });
    return (JSON.parse(answer.body) as { grant?: string }).grant;
  };
  /** Swaps the policy the proxy decides with (a live edit in the page). */
  const setPolicy = (next: Policy) => {
    policy = next;
  };
  return { ...f, proxy, call, grant, setPolicy };
}

export type ProxiedVault = ReturnType<typeof proxiedVault>;

export const pushBody = (vaultId: string, objects: Record<string, string>, base: VaultHead = EMPTY_HEAD) => ({
  vault_id: vaultId,
  base,
  objects: Object.entries(objects).map(([path, content]) => ({ path, content_base64: toBase64(text(content)) })),
});

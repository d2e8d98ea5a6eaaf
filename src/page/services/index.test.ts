import { describe, expect, it } from "vitest";
import { createVaultHandlers, type Kms, type VaultStorage } from "../../kms";
import { allow, createEventLog } from "../../log";
import { MODEL_ROUTE } from "../../model";
import type { OwnEndpointSpec, OwnRequest } from "../../proxy";
import { createRuntimeFetchEndpoint } from "../../resolver";
import { lazyHandlers, PAGE_ROUTES } from "./index";

describe("the page's lazily loaded services", () => {
  it("the proxy's page routes, known before their code loads, are exactly the vault's, the model endpoint's and the run-time fetch's, each with its own mode and body type", () => {
    // The handlers' keys do not depend on the KMS or the storage (only calls do).
    const vault = createVaultHandlers({ kms: {} as Kms, storage: {} as VaultStorage, log: createEventLog() });
    const runtimeFetch = createRuntimeFetchEndpoint().handlers;
    expect(Object.keys(PAGE_ROUTES).sort()).toEqual([...Object.keys(vault), MODEL_ROUTE, ...Object.keys(runtimeFetch)].sort());
    for (const [route, handler] of Object.entries({ ...vault, ...runtimeFetch })) {
      const { handle: _, ...declared } = typeof handler === "function" ? { handle: handler } : handler;
      expect(PAGE_ROUTES[route]).toEqual(declared);
    }
  });

  it("a lazy handler loads the real handlers when a request comes and answers with theirs; a route they lack is a clear error", async () => {
    let loads = 0;
    const seen: string[] = [];
    const handlers = lazyHandlers({ "POST /v0/a": { mode: "vault", json: true }, "POST /v0/b": {} }, async () => {
      loads++;
      return {
        "POST /v0/a": async (request) => {
          seen.push(request.path);
          return { verdict: allow("a", "kms"), body: "from a" };
        },
      };
    });
    expect(loads).toBe(0);
    const request = { method: "POST", path: "/v0/a" } as OwnRequest;
    const a = handlers["POST /v0/a"] as OwnEndpointSpec;
    expect(a).toMatchObject({ mode: "vault", json: true });
    expect((await a.handle(request)).body).toBe("from a");
    expect(seen).toEqual(["/v0/a"]);
    expect(loads).toBe(1);
    await expect((handlers["POST /v0/b"] as OwnEndpointSpec).handle(request)).rejects.toThrow("the page serves no POST /v0/b");
  });
});

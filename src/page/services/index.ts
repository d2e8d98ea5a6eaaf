import type { OwnEndpointSpec, OwnHandlers, OwnRequest, OwnResponse } from "../../proxy";
import { proposedPrefixes } from "../link";
import type { CasDatabase, LazyPageServices, OwnRouteDeclaration, PageServices, PageServicesOptions } from "./types";

export type { LazyPageServices, OwnRouteDeclaration, PageServices, PageServicesOptions } from "./types";

/** Where the page keeps the content-addressed cache: one IndexedDB database, one object store. */
export const CAS_DATABASE: CasDatabase = { name: "linux-in-a-tab", store: "cas" };

/**
 * The routes the page serves on its proxy, known before their code is loaded: the vault's
 * (src/kms/endpoints.ts) and the model endpoint's (src/model/endpoint.ts). A unit test holds
 * this list to the handlers' own keys.
 */
export const PAGE_ROUTES: Readonly<Record<string, OwnRouteDeclaration>> = {
  "POST /v0/vault/grant": { mode: "vault", json: true },
  "POST /v0/vault/pull": { mode: "vault", json: true },
  "POST /v0/vault/push": { mode: "vault", json: true },
  // The guest's tab-agent posts its transcript as text/plain (docs/limits.md).
  "POST /v0/model": {},
  // tab-fetch in the guest (the resolver's run-time fetch endpoint).
  "POST /v0/resolve": { json: true },
};

export function createPageServices(options: PageServicesOptions): LazyPageServices {
  let built: Promise<PageServices> | null = null;
  const load = () => {
    built ??= buildPageServices(options);
    return built;
  };
  return { load, proxyHandlers: lazyHandlers(PAGE_ROUTES, async () => (await load()).proxyHandlers) };
}

/**
 * Handlers for `routes` that load the real ones on the first request, then pass every request
 * on. Each route's mode and body type are declared up front, so the proxy checks a request
 * (a vault call's JSON body, say) before any code behind it has loaded.
 */
export function lazyHandlers(routes: Readonly<Record<string, OwnRouteDeclaration>>, load: () => Promise<OwnHandlers>): OwnHandlers {
  const handlers: Record<string, OwnEndpointSpec> = {};
  for (const [route, declared] of Object.entries(routes))
    handlers[route] = {
      ...declared,
      handle: async (request: OwnRequest): Promise<OwnResponse> => {
        const handler = (await load())[route];
        if (!handler) throw new Error(`the page serves no ${route}`);
        return typeof handler === "function" ? handler(request) : handler.handle(request);
      },
    };
  return handlers;
}

async function buildPageServices(options: PageServicesOptions): Promise<PageServices> {
  const { log, link, fetch } = options;
  const [
    { toHex },
    { createCas, createIdbStore, createMemoryStore },
    { createPageDigest },
    model,
    session,
    runnerModule,
    skillsModule,
    vaultModule,
    orgModule,
    resolverModule,
  ] = await Promise.all([
    import("../../bytes"),
    import("../../cas"),
    import("../cache/digest"),
    import("./model-endpoint"),
    import("./resolver"),
    import("./runner/page-runner"),
    import("./skills"),
    import("./vault"),
    import("./org-allowlist"),
    import("../../resolver"),
  ]);
  const digest = createPageDigest();
  // Where IndexedDB is refused (a storage-blocked embed) the cache lives for this visit only.
  const databases = await options.databases;
  const store = databases ? createIdbStore(CAS_DATABASE.name, CAS_DATABASE.store) : createMemoryStore();
  const cas = createCas({ store, log, digest });
  const skills = skillsModule.createPageSkills(cas, options.storage, databases);
  const vault = vaultModule.createPageVault({ cas, log, databases });
  const modelEndpoint = model.createPageModelEndpoint();
  const bundleRoot = new URL("samples/", link.href).href;
  // The deployment's own settings (tab.config.json beside the page), read once.
  const deployment = orgModule.readDeploymentConfig({ pageHref: link.href, fetch, log });
  const orgAllowlist = orgModule.createPageOrgAllowlist({ log, storage: options.storage, bundleRoot, deployment });
  // Proposed here, before any feature mounts, so a link's resolve always sees it pending.
  // An embedded view has no Resolver panel to ask in: its proposals are dropped, said on the log,
  // rather than leaving the link's resolve waiting for an answer nobody can give.
  const proposed = proposedPrefixes(link.allowPrefixes);
  if (proposed.length > 0 && link.embed === "1")
    log.append({
      kind: "note",
      level: "warning",
      source: "resolver",
      message: `an embedded view does not take org allowlist proposals; ignored: ${proposed.join(", ")}`,
    });
  else if (proposed.length > 0) void orgAllowlist.propose(proposed, "share link");
  const runtimeFetch = resolverModule.createRuntimeFetchEndpoint();
  const resolver = session.createPageResolver({
    cas,
    log,
    bundleRoot,
    recordings: link.fixtures === "samples",
    fetch,
    orgAllowlist,
  });
  const runner = runnerModule.createPageRunner({
    log,
    cas,
    resolver,
    runtimeFetch,
    guest: options.guest,
    turns: options.turns,
    randomId: () => toHex(crypto.getRandomValues(new Uint8Array(4))),
    skills: {
      store: skills.store,
      handles: skills.handles,
      attached: () => skills.choices.attached(),
      scriptPins: () => skills.choices.scriptPins(),
    },
    defaultHarness: () => options.harnessField() || link.harness || "demo",
  });
  return {
    digest,
    cas,
    casDatabase: CAS_DATABASE,
    skills,
    vault,
    modelEndpoint,
    runtimeFetch,
    resolver,
    orgAllowlist,
    runner,
    proxyHandlers: { ...vault.service.handlers, ...modelEndpoint.handlers, ...runtimeFetch.handlers },
    fetch,
    link,
  };
}

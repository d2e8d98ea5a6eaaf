import type { Cas } from "../cas";
import type { ConsoleTurns } from "../console";
import type { EventLog } from "../log";
import type { ModelEndpoint } from "../model";
import type { OwnEndpointSpec, OwnHandlers, OwnRequest, OwnResponse } from "../proxy";
import type { FetchLike, OrgAllowlist, RuntimeFetchEndpoint } from "../resolver";
import type { PageDigest } from "./cache/digest";
import type { Guest } from "./emulator/boot";
import type { ResolverSession } from "./features/resolve/session";
import type { PageRunner } from "./features/runner/page-runner";
import type { PageSkills } from "./features/skills/stores";
import type { PageVault } from "./features/vault/service";
import { type PageLink, proposedPrefixes } from "./link";

/** Where the page keeps the content-addressed cache: one IndexedDB database, one object store. */
export const CAS_DATABASE = { name: "linux-in-a-tab", store: "cas" } as const;

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

/** What the proxy must know of a route before its code loads: the decision's mode and the body type it requires. */
export type OwnRouteDeclaration = Omit<OwnEndpointSpec, "handle">;

/**
 * The page's services, built once here and handed to every feature as `ctx.services`: one
 * instance of each, so the proxy serves the same vault and model endpoint the features
 * drive, and the resolver, skills and vault share one verified cache (content-addressed, re-hashed on every read).
 */
export interface PageServices {
  /** The CAS's digest (its counts show where large inputs were hashed). */
  digest: PageDigest;
  /** The one content-addressed cache on IndexedDB: harness resources, skills, vault blobs. */
  cas: Cas;
  casDatabase: typeof CAS_DATABASE;
  skills: PageSkills;
  vault: PageVault;
  /** `POST /v0/model`: the Model section arms it, the proxy serves it. */
  modelEndpoint: ModelEndpoint;
  /** `POST /v0/resolve` (tab-fetch): the runner arms it for a run's duration, the proxy serves it. */
  runtimeFetch: RuntimeFetchEndpoint;
  /** The sample bundle, its recordings, pinned URLs: the Resolver panel's and the runner's. */
  resolver: ResolverSession;
  /** The org allowlist every resolve uses: edited in the Resolver panel, proposed (never applied) by a share link. */
  orgAllowlist: OrgAllowlist;
  runner: PageRunner;
  /** The page's own endpoints on the proxy (`/v0/vault/*`, `/v0/model`, `/v0/resolve`). */
  proxyHandlers: OwnHandlers;
  /** The real network, for what the page itself fetches (registries, pinned policies). */
  fetch: FetchLike;
  /** The page's link, read once (src/page/link.ts). */
  link: PageLink;
}

/**
 * The services before their code is loaded. Their code (the cache, the resolver and its YAML
 * parser, the KMS, the runner, the model endpoint) is not part of the first screen: `load()`
 * imports and builds them, once, on first use. The proxy's handlers exist from the start and
 * load the services when the guest first calls one.
 */
export interface LazyPageServices {
  /** Builds the services on the first call (later calls get the same instances). */
  load(): Promise<PageServices>;
  /** The page's own endpoints on the proxy, for the guest's boot: each loads the services on its first request. */
  proxyHandlers: OwnHandlers;
}

export interface PageServicesOptions {
  log: EventLog;
  /** The page's link, read once: the sample bundle sits beside it, and it says `?fixtures=`, `?allow-prefix=`, `?embed=`. */
  link: PageLink;
  fetch: FetchLike;
  guest: Promise<Guest>;
  turns: ConsoleTurns;
  /** Where the operator keeps small choices (the skills to attach); null when there is none. */
  storage: Storage | null;
  /** What "Run agent" runs when nobody says: the harness field, else the link's, else the demo. */
  harnessField(): string;
}

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
    { createCas, createIdbStore },
    { createPageDigest },
    model,
    session,
    runnerModule,
    skillsModule,
    vaultModule,
    orgModule,
    resolverModule,
  ] = await Promise.all([
    import("../bytes"),
    import("../cas"),
    import("./cache/digest"),
    import("./features/model/endpoint"),
    import("./features/resolve/session"),
    import("./features/runner/page-runner"),
    import("./features/skills/stores"),
    import("./features/vault/service"),
    import("./features/resolve/org-allowlist"),
    import("../resolver"),
  ]);
  const digest = createPageDigest();
  const cas = createCas({ store: createIdbStore(CAS_DATABASE.name, CAS_DATABASE.store), log, digest });
  const skills = skillsModule.createPageSkills(cas, options.storage);
  const vault = vaultModule.createPageVault({ cas, log });
  const modelEndpoint = model.createPageModelEndpoint();
  const bundleRoot = new URL("samples/", link.href).href;
  const orgAllowlist = orgModule.createPageOrgAllowlist({ log, storage: options.storage, bundleRoot });
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
  const resolver = session.createResolverSession({
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

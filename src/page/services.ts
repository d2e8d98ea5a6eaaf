import type { Cas } from "../cas";
import type { EventLog } from "../log";
import type { ModelEndpoint } from "../model";
import type { OwnHandlers, OwnRequest, OwnResponse } from "../proxy";
import type { FetchLike } from "../resolver";
import type { PageDigest } from "./cache/digest";
import type { ConsoleTurns } from "./console/console-turns";
import type { Guest } from "./emulator/boot";
import type { ResolverSession } from "./features/resolve/session";
import type { PageRunner } from "./features/runner/page-runner";
import type { PageSkills } from "./features/skills/stores";
import type { PageVault } from "./features/vault/service";

/** Where the page keeps the content-addressed cache: one IndexedDB database, one object store. */
export const CAS_DATABASE = { name: "linux-in-a-tab", store: "cas" } as const;

/**
 * The routes the page serves on its proxy, known before their code is loaded: the vault's
 * (src/kms/endpoints.ts) and the model endpoint's (src/model/endpoint.ts). A unit test holds
 * this list to the handlers' own keys.
 */
export const PAGE_ROUTES = ["POST /v0/vault/grant", "POST /v0/vault/pull", "POST /v0/vault/push", "POST /v0/model"] as const;

/**
 * The page's services, built once here and handed to every feature as `ctx.services`: one
 * instance of each, so the proxy serves the same vault and model endpoint the features
 * drive, and the resolver, skills and vault share one verified cache.
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
  /** The sample bundle, its recordings, pinned URLs: the Resolver panel's and the runner's. */
  resolver: ResolverSession;
  runner: PageRunner;
  /** The page's own endpoints on the proxy (`/v0/vault/*`, `/v0/model`). */
  proxyHandlers: OwnHandlers;
  /** The real network, for what the page itself fetches (registries, pinned policies). */
  fetch: FetchLike;
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
  /** The page's own URL: the sample bundle sits beside it, and its query says `?fixtures=`. */
  href: string;
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

/** Handlers for `routes` that load the real ones on the first request, then pass every request on. */
export function lazyHandlers(routes: readonly string[], load: () => Promise<OwnHandlers>): OwnHandlers {
  const handlers: Record<string, (request: OwnRequest) => Promise<OwnResponse>> = {};
  for (const route of routes)
    handlers[route] = async (request) => {
      const handler = (await load())[route];
      if (!handler) throw new Error(`the page serves no ${route}`);
      return handler(request);
    };
  return handlers;
}

async function buildPageServices(options: PageServicesOptions): Promise<PageServices> {
  const { log, href, fetch } = options;
  const [{ toHex }, { createCas, createIdbStore }, { createPageDigest }, model, link, session, runnerModule, skillsModule, vaultModule] =
    await Promise.all([
      import("../bytes"),
      import("../cas"),
      import("./cache/digest"),
      import("./features/model/endpoint"),
      import("./features/resolve/link"),
      import("./features/resolve/session"),
      import("./features/runner/page-runner"),
      import("./features/skills/stores"),
      import("./features/vault/service"),
    ]);
  const digest = createPageDigest();
  const cas = createCas({ store: createIdbStore(CAS_DATABASE.name, CAS_DATABASE.store), log, digest });
  const skills = skillsModule.createPageSkills(cas, options.storage);
  const vault = vaultModule.createPageVault({ cas, log });
  const modelEndpoint = model.createPageModelEndpoint();
  const harnessLink = link.harnessFromHref(href);
  const resolver = session.createResolverSession({
    cas,
    log,
    bundleRoot: new URL("samples/", href).href,
    recordings: harnessLink.params.get("fixtures") === "samples",
    fetch,
  });
  const runner = runnerModule.createPageRunner({
    log,
    cas,
    resolver,
    guest: options.guest,
    turns: options.turns,
    randomId: () => toHex(crypto.getRandomValues(new Uint8Array(4))),
    skills: {
      store: skills.store,
      handles: skills.handles,
      attached: () => skills.choices.attached(),
      scriptPins: () => skills.choices.scriptPins(),
    },
    defaultHarness: () => options.harnessField() || harnessLink.harness || "demo",
  });
  return {
    digest,
    cas,
    casDatabase: CAS_DATABASE,
    skills,
    vault,
    modelEndpoint,
    resolver,
    runner,
    proxyHandlers: { ...vault.service.handlers, ...modelEndpoint.handlers },
    fetch,
  };
}

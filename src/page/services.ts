import { toHex } from "../bytes";
import { type Cas, createCas, createIdbStore } from "../cas";
import type { EventLog } from "../log";
import type { ModelEndpoint } from "../model";
import type { OwnHandlers } from "../proxy";
import { createRuntimeFetchEndpoint, type FetchLike, type RuntimeFetchEndpoint } from "../resolver";
import { createPageDigest, type PageDigest } from "./cache/digest";
import type { ConsoleTurns } from "./console/console-turns";
import type { Guest } from "./emulator/boot";
import { createPageModelEndpoint } from "./features/model/endpoint";
import { harnessFromHref } from "./features/resolve/link";
import { createResolverSession, type ResolverSession } from "./features/resolve/session";
import { createPageRunner, type PageRunner } from "./features/runner/page-runner";
import { createPageSkills, type PageSkills } from "./features/skills/stores";
import { createPageVault, type PageVault } from "./features/vault/service";

/** Where the page keeps the content-addressed cache: one IndexedDB database, one object store. */
export const CAS_DATABASE = { name: "linux-in-a-tab", store: "cas" } as const;

/**
 * The page's services, built once here and handed to every feature as `ctx.services`: one
 * instance of each, so the proxy serves the same vault and model endpoint the features
 * drive, and the resolver, skills and vault share one verified cache (ADR 38).
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
  runner: PageRunner;
  /** The page's own endpoints on the proxy (`/v0/vault/*`, `/v0/model`, `/v0/resolve`). */
  proxyHandlers: OwnHandlers;
  /** The real network, for what the page itself fetches (registries, pinned policies). */
  fetch: FetchLike;
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

export function createPageServices(options: PageServicesOptions): PageServices {
  const { log, href, fetch } = options;
  const digest = createPageDigest();
  const cas = createCas({ store: createIdbStore(CAS_DATABASE.name, CAS_DATABASE.store), log, digest });
  const skills = createPageSkills(cas, options.storage);
  const vault = createPageVault({ cas, log });
  const modelEndpoint = createPageModelEndpoint();
  const runtimeFetch = createRuntimeFetchEndpoint();
  const link = harnessFromHref(href);
  const resolver = createResolverSession({
    cas,
    log,
    bundleRoot: new URL("samples/", href).href,
    recordings: link.params.get("fixtures") === "samples",
    fetch,
  });
  const runner = createPageRunner({
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
    runner,
    proxyHandlers: { ...vault.service.handlers, ...modelEndpoint.handlers, ...runtimeFetch.handlers },
    fetch,
  };
}
